import FuzzSupport
import KeychainCore

/// libFuzzer target for what `add --ref-file` and `import --input-format pkcs12` read: the first
/// byte picks a certificate-or-key file (PEM or DER) or a PKCS#12 file (passphrase "fixture", the
/// seeds'). Whatever parses must also come back out: a certificate as PEM, a key's public half
/// rebuilt from the external representation the keychain stores.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzObjects(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    guard let selector = bytes.first else { return 0 }
    let rest = SecretBytes(copying: bytes.dropFirst())
    if selector % 2 == 0 {
        guard let reference = try? ItemReference(files: [(path: "fuzz", contents: rest)]) else { return 0 }
        for certificate in reference.certificates {
            precondition(Certificate.pem(der: certificate.der) != nil, "a parsed certificate did not encode")
        }
        for key in reference.keys { check(key) }
    } else {
        guard let archive = try? PKCS12Archive(der: rest, passphrase: SecretBytes(copying: Array("fixture".utf8))) else { return 0 }
        for identity in archive.identities {
            precondition(identity.key.applicationLabel == identity.certificate.publicKeyHash, "an identity's halves differ")
            check(identity.key)
        }
    }
    return 0
}

/// A parsed key's public half rebuilds from what the keychain would store.
private func check(_ key: KeyMaterial) {
    guard case .string(let type)? = key.attributes["type"], case .number(let bits)? = key.attributes["bsiz"] else {
        preconditionFailure("a parsed key has no type or size")
    }
    precondition(
        KeyMaterial.publicKeyPEM(external: key.external, keyType: type, isPrivate: key.isPrivate, bits: Int(bits)) != nil,
        "a parsed key's public half did not rebuild")
}

/// The entry point SwiftPM links for this executable.
@_cdecl("fuzz_objects_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv, fuzzObjects)
}
