import KeychainFormats
import KeychainFoundation
import TextEscaping

/// SecItemAdd with `kSecValueRef`: a certificate, key or identity whose attributes are derived from
/// it (docs/FIDELITY.md), the caller's attributes taking precedence.
extension Keychain {
    /// Adds `reference` as an item of the request's class: `cert` takes one certificate, `keys` one
    /// key, `idnt` a certificate and the private key whose application label is its public key
    /// hash. Anything else is errSecParam saying what the files held.
    package func add(_ request: ItemRequest, reference: ItemReference, caller: Caller, updateExisting: Bool = false)
        throws -> AddResult
    {
        let itemClass = try ItemQuery.parseClass(request.itemClass)
        func refuse(_ wanted: String) -> KeychainError {
            KeychainError(.param, hint: "--class \(itemClass.rawValue) by reference takes \(wanted); the files hold \(reference.contents).")
        }
        // A private key's bytes leave the keychain only through find --allow-private-key-export:
        // refused here before anything is written, rather than after.
        if request.returns?.value?.contains(.data) == true, reference.keys.contains(where: \.isPrivate) {
            throw KeychainError(
                .param,
                hint:
                    "an add does not return a private key's bytes; find --return data --allow-private-key-export does, for an extractable key."
            )
        }
        var derived = request
        switch itemClass {
        case .certificate:
            guard let certificate = reference.certificates.first, reference.certificates.count == 1, reference.keys.isEmpty else {
                throw refuse("one certificate")
            }
            derived.derived = certificate.attributes
            return try add(derived, secret: SecretBytes(copying: certificate.der), caller: caller, updateExisting: updateExisting)
        case .key:
            guard let key = reference.keys.first, reference.keys.count == 1, reference.certificates.isEmpty else {
                throw refuse("one key")
            }
            derived.derived = key.attributes
            return try add(derived, secret: key.external, caller: caller, updateExisting: updateExisting)
        case .identity:
            guard reference.certificates.count == 1, reference.keys.count == 1 else {
                throw refuse("one certificate and its private key")
            }
            return try addIdentity(
                request, certificate: reference.certificates[0], key: reference.keys[0], caller: caller, updateExisting: updateExisting)
        case .genericPassword, .internetPassword:
            throw KeychainError(
                .param,
                hint: "a reference (--ref-file) is a certificate, key or identity; a \(itemClass.longName) takes its secret as data.")
        }
    }

    /// An identity added as `explode_identity` adds it (`SecItem.m:487-623`): the certificate, then
    /// the key, each with the caller's attributes; a duplicate certificate is no failure, nor a
    /// duplicate key beside a new certificate: errSecDuplicateItem only when both exist. Unlike
    /// Apple, both halves are written in one transaction (a key half that fails leaves no
    /// certificate behind).
    func addIdentity(_ request: ItemRequest, certificate: Certificate, key: KeyMaterial, caller: Caller, updateExisting: Bool)
        throws -> AddResult
    {
        guard key.isPrivate, key.applicationLabel == certificate.publicKeyHash else {
            throw KeychainError(
                .param,
                hint: key.isPrivate
                    ? "the key is not the certificate's: its public key differs from the one the certificate holds."
                    : "an identity needs the certificate's private key; the file holds a public key.")
        }
        var (certificateRequest, keyRequest) = Self.classHalves(request)
        certificateRequest.derived = certificate.attributes
        keyRequest.derived = key.attributes
        let certificateSecret = SecretBytes(copying: certificate.der)
        // Both halves are checked (a key attribute given for the certificate half is
        // errSecNoSuchAttr, as Apple's first add fails) before either is written.
        let certificateAdd = try prepareAdd(certificateRequest, secret: certificateSecret, caller: caller)
        let keyAdd = try prepareAdd(keyRequest, secret: key.external, caller: caller)
        return try store.write {
            var result: AddResult?
            do {
                result = try insert(certificateAdd, updateExisting: updateExisting)
            } catch let error as KeychainError where error.status == .duplicateItem {}
            do {
                _ = try insert(keyAdd, updateExisting: updateExisting)
            } catch let error as KeychainError where error.status == .duplicateItem {
                if result == nil {
                    throw KeychainError(
                        .duplicateItem,
                        hint:
                            "this identity's certificate and private key are both in group \(certificateAdd.sealed.accessGroup.terminalSafe) already."
                    )
                }
            }
            return result ?? AddResult(item: certificateAdd.item, updatedExisting: false, warnings: certificateAdd.warnings, returns: [])
        }
    }
}
