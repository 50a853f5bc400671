import KeychainFormats
import KeychainFoundation
import TextEscaping

/// Identities (`kSecClassIdentity`): not a table but a certificate joined with the private key whose
/// application label (`klbl`) is the certificate's public key hash (`pkhh`).
extension Keychain {
    /// The attributes an identity query sends to its certificate half (`SecItemDb.c:845-878`); every
    /// other attribute is the key's, `agrp`, `pdmn` and `sync` included. Apple's list also routes
    /// `tkid` (a token's identifier), which this keychain does not store: a query naming it is
    /// errSecNoSuchAttr before routing, so it is left out.
    static let identityCertificateAttributes: Set<String> = [Schema.label, Schema.issuer, Schema.serialNumber, Schema.subjectKeyID]

    /// SecItemCopyMatching on identities: every certificate matching its half of the query, joined
    /// with every private key matching the other half, both in groups the caller can read; each
    /// result is the key's attributes overlaid with the certificate's, its data the key's, its
    /// persistent reference `idnt` and the certificate's UUID. Whichever half finds nothing is
    /// errSecItemNotFound saying which. A private key's bytes refuse the call as a key find does.
    func findIdentities(
        _ request: ItemRequest, caller: Caller, skipDamaged: Bool, each: (ItemQuery, FoundItem) throws -> Void
    ) throws -> FindSummary {
        let join = try joinIdentities(request, caller: caller, skipDamaged: skipDamaged)
        for match in join.pairs {
            if let refusal = ObjectReference.exportRefusal(
                match.identity, returnsData: join.shape.returns.contains(.data), returnsReference: join.shape.returns.contains(.reference),
                allowed: request.allowPrivateKeyExport)
            {
                throw refusal
            }
        }
        for match in join.pairs {
            try each(
                join.shape,
                try Self.found(
                    match.identity, secret: match.key.secret.map { ItemSecret(data: $0) },
                    certificate: match.certificate.secret?.withUnsafeBytes { Array($0) },
                    query: join.shape, request: request))
        }
        return FindSummary(query: join.shape, count: join.pairs.count, damaged: join.damaged)
    }

    /// The identities a find's request selects, up to its limit: each with its two halves.
    struct IdentityJoin {
        let shape: ItemQuery
        let pairs: [(identity: Item, certificate: FoundItem, key: FoundItem)]
        let damaged: [DamagedRow]
    }

    /// Joins the certificates and keys a find's request selects. An identity's persistent
    /// reference selects its certificate, and stands alone as any persistent reference does.
    func joinIdentities(_ request: ItemRequest, caller: Caller, skipDamaged: Bool) throws -> IdentityJoin {
        var (certificateHalf, keyHalf) = Self.identityHalves(request)
        if let text = request.persistentRef {
            guard let certificateRef = Self.certificateRef(ofIdentity: text) else {
                throw KeychainError(
                    .param,
                    hint: "'\(text.terminalSafe)' is not an identity's persistent reference (base64 of idnt and its certificate's UUID).")
            }
            guard request.attributes.isEmpty, request.sync == nil else { throw Self.persistentRefNotAlone }
            certificateHalf.attributes = []
            certificateHalf.sync = nil
            certificateHalf.persistentRef = certificateRef
        }
        // The answer's shape (limit and returns), its key attributes checked as a key query's are.
        let shape = try Self.identityShape(keyHalf)
        certificateHalf.limit = .value(.all)
        certificateHalf.returns = .value(
            shape.returns.contains(.reference) ? [.attributes, .persistentRef, .data] : [.attributes, .persistentRef])
        keyHalf.limit = .value(.all)
        keyHalf.returns = .value(shape.returns.needsSecret ? [.attributes, .persistentRef, .data] : [.attributes, .persistentRef])

        var certificates: [FoundItem] = []
        var keys: [FoundItem] = []
        let certificateSummary = try half("certificate", of: certificateHalf, caller: caller, skipDamaged: skipDamaged) {
            certificates.append($0)
        }
        let keySummary = try half("private key", of: keyHalf, caller: caller, skipDamaged: skipDamaged) {
            keys.append($0)
        }
        let keysByLabel = Dictionary(grouping: keys) { $0.item.attributes[Schema.applicationLabel] }
        var pairs: [(identity: Item, certificate: FoundItem, key: FoundItem)] = []
        let limit = shape.limit.rowLimit
        search: for certificate in certificates {
            for key in keysByLabel[certificate.item.attributes[Schema.publicKeyHash]] ?? [] where Self.completes(key.item, certificate.item)
            {
                if let limit, pairs.count == limit { break search }
                pairs.append((Self.identity(certificate: certificate.item, key: key.item), certificate, key))
            }
        }
        guard !pairs.isEmpty else {
            throw KeychainError(
                .itemNotFound,
                hint:
                    "\(certificates.count) certificate(s) and \(keys.count) key(s) matched, but no private key's klbl is a certificate's pkhh: an identity needs both halves in groups this app can read."
            )
        }
        return IdentityJoin(shape: shape, pairs: pairs, damaged: certificateSummary.damaged + keySummary.damaged)
    }

    /// Whether `request` is about identities: by its class, or by an identity's persistent reference.
    static func isIdentity(_ request: ItemRequest) -> Bool {
        ItemClass(parsing: request.itemClass ?? "") == .identity || certificateRef(ofIdentity: request.persistentRef) != nil
    }

    /// The certificate's persistent reference that an identity's (`idnt` and the certificate's
    /// UUID) names; `nil` when `text` is not an identity's.
    static func certificateRef(ofIdentity text: String?) -> String? {
        guard let text, let bytes = Base64.decode(text), bytes.count == 20, bytes.prefix(4).elementsEqual(ItemClass.identity.rawValue.utf8)
        else { return nil }
        return PersistentRef(itemClass: .certificate, uuid: Array(bytes[4...])).base64
    }

    /// A find's two halves, as Apple's join routes the query: labl, issr, slnr and skid to the
    /// certificate (which takes any sync value: the key's decides), the rest to the key.
    static func identityHalves(_ request: ItemRequest) -> (certificate: ItemRequest, key: ItemRequest) {
        var keyHalf = request
        keyHalf.itemClass = ItemClass.key.rawValue
        keyHalf.attributes = request.attributes.filter { !identityCertificateAttributes.contains($0.code) }
        keyHalf.persistentRef = nil
        var certificateHalf = request
        certificateHalf.itemClass = ItemClass.certificate.rawValue
        certificateHalf.attributes = request.attributes.filter { identityCertificateAttributes.contains($0.code) }
        certificateHalf.sync = .any
        certificateHalf.persistentRef = nil
        return (certificateHalf, keyHalf)
    }

    /// A delete's or update's two halves: the same request, asked of certificates and of keys.
    static func classHalves(_ request: ItemRequest) -> (certificate: ItemRequest, key: ItemRequest) {
        var certificateHalf = request
        certificateHalf.itemClass = ItemClass.certificate.rawValue
        var keyHalf = request
        keyHalf.itemClass = ItemClass.key.rawValue
        return (certificateHalf, keyHalf)
    }

    /// Whether `key` (a private key, by the join's `priv` test) completes `certificate`.
    static func completes(_ key: Item, _ certificate: Item) -> Bool {
        key.attributes[Schema.isPrivate] == .bool(true) && certificate.attributes[Schema.publicKeyHash] != nil
            && key.attributes[Schema.applicationLabel] == certificate.attributes[Schema.publicKeyHash]
    }

    /// The identity a certificate and its key make: the key's attributes overlaid with the
    /// certificate's, named by the certificate's UUID.
    static func identity(certificate: Item, key: Item) -> Item {
        var attributes = key.attributes
        for (code, value) in certificate.attributes { attributes[code] = value }
        return Item(itemClass: .identity, uuid: certificate.uuid, attributes: attributes)
    }

    /// The query a key half makes, which shapes the identities' answer; an attribute neither half
    /// has is errSecNoSuchAttr saying how attributes are routed.
    private static func identityShape(_ keyHalf: ItemRequest) throws(KeychainError) -> ItemQuery {
        do {
            return try ItemQuery(keyHalf, defaultLimit: .one, defaultReturns: [.attributes])
        } catch {
            guard error.status == .noSuchAttr else { throw error }
            throw KeychainError(
                error.status,
                hint: "an identity query sends labl, issr, slnr and skid to the certificate and the rest to the key: \(error.hint)")
        }
    }

    /// One half of an identity find; its errSecItemNotFound says which half found nothing.
    private func half(
        _ name: String, of request: ItemRequest, caller: Caller, skipDamaged: Bool, _ each: (FoundItem) -> Void
    ) throws -> FindSummary {
        do {
            return try find(request, caller: caller, skipDamaged: skipDamaged, checkingExport: false) { each($1) }
        } catch let error as KeychainError where error.status == .itemNotFound {
            let routed = name == "certificate" ? "labl, issr, slnr and skid" : "every attribute but labl, issr, slnr and skid"
            throw KeychainError(.itemNotFound, hint: "no \(name) matched the identity's \(name) half (\(routed)): \(error.hint)")
        }
    }

    /// SecItemDelete on identities, as `explode_identity` does it (`SecItem.m:591-607`): not a join,
    /// but the same query deleting certificates and then, only if some were found, keys, so an
    /// empty query deletes every certificate and every key (public and unrelated ones too) in the
    /// caller's writable groups. Unlike Apple, both deletes are one transaction: when the key half
    /// fails (errSecItemNotFound, or errSecNoSuchAttr for a certificate-only attribute), the
    /// certificates are not deleted either.
    func deleteIdentities(_ request: ItemRequest, caller: Caller, dryRun: Bool, skipDamaged: Bool) throws -> ChangeResult {
        if request.persistentRef != nil { return try deleteIdentity(request, caller: caller, dryRun: dryRun) }
        return try bothHalves(request, operation: "delete", dryRun: dryRun) { half, dryRun in
            try delete(half, caller: caller, dryRun: dryRun, skipDamaged: skipDamaged)
        }
    }

    /// SecItemDelete with an identity's persistent reference (`explode_persistent_identity_ref`,
    /// then `explode_identity`, `SecItem.m:520-543`): its certificate, then its key unless another
    /// certificate the caller sees still holds that key's public key hash.
    private func deleteIdentity(_ request: ItemRequest, caller: Caller, dryRun: Bool) throws -> ChangeResult {
        let join = try joinIdentities(request, caller: caller, skipDamaged: false)
        guard let match = join.pairs.first else { throw KeychainError(.itemNotFound, hint: "no identity has that persistent reference.") }
        return try writeOrRehearse(dryRun: dryRun) {
            let certificate = try delete(
                ItemRequest(persistentRef: match.certificate.item.persistentRef.base64), caller: caller, dryRun: dryRun)
            var others = ItemRequest(itemClass: ItemClass.certificate.rawValue)
            others.limit = .value(.one)
            others.sync = .any
            if case .data(let hash)? = match.key.item.attributes[Schema.applicationLabel] {
                others.attributes.append((Schema.publicKeyHash, .value(.data(hash))))
            }
            let stillHeld = (try? find(others, caller: caller, skipDamaged: true, checkingExport: false) { _, _ in }) != nil
            guard !stillHeld else { return certificate }
            return certificate.followed(
                by: try delete(ItemRequest(persistentRef: match.key.item.persistentRef.base64), caller: caller, dryRun: dryRun))
        }
    }

    /// SecItemUpdate on identities (`handleUpdateIdentity`, `SecItem.m:626-686`): the same query and
    /// changes applied to certificates, then to keys. Unlike Apple, in one transaction.
    func updateIdentities(
        _ request: ItemRequest, changes: ChangeRequest, caller: Caller, dryRun: Bool, skipDamaged: Bool
    ) throws -> ChangeResult {
        guard request.persistentRef == nil else {
            // Apple's update by an identity's reference fails inside securityd (errSecInternal).
            throw KeychainError(
                .param,
                hint: "an identity's persistent reference cannot be updated (Apple fails it); update its certificate and key by theirs.")
        }
        return try bothHalves(request, operation: "update", dryRun: dryRun) { half, dryRun in
            try update(half, changes: changes, caller: caller, dryRun: dryRun, skipDamaged: skipDamaged)
        }
    }

    /// Runs `change` on the certificate half and then the key half of `request` (no persistent
    /// reference) in one transaction.
    private func bothHalves(
        _ request: ItemRequest, operation: String, dryRun: Bool, _ change: (ItemRequest, Bool) throws -> ChangeResult
    ) throws -> ChangeResult {
        let halves = Self.classHalves(request)
        return try writeOrRehearse(dryRun: dryRun) {
            let certificates = try change(halves.certificate, dryRun)
            let keys: ChangeResult
            do {
                keys = try change(halves.key, dryRun)
            } catch let error as KeychainError {
                throw KeychainError(
                    error.status,
                    hint:
                        "the key half failed after \(certificates.count) certificate(s) matched, so nothing was changed (Apple would have kept the certificates' \(operation)): \(error.hint)",
                    damaged: error.damaged)
            }
            return certificates.followed(by: keys)
        }
    }
}
