import KeychainCore

/// libFuzzer target for what `add --ref-file` and `import --input-format pkcs12` read, and what
/// `SecKeyCreateWithData` reads: the first byte picks a certificate-or-key file (PEM or DER), a
/// PKCS#12 file (passphrase "fixture", the seeds'), or, with its high bit set, a key in Apple's
/// external representation (its low bits: RSA or EC, public or private). Whatever parses must
/// also come back out: a certificate as PEM, a key's public half rebuilt from the external
/// representation the keychain stores, and a key read from one reads back the same and verifies
/// its own signature.
func fuzzObjects(_ data: UnsafePointer<UInt8>, _ count: Int) throws(FuzzViolation) {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    guard let selector = bytes.first else { return }
    let rest = SecretBytes(copying: bytes.dropFirst())
    if selector >= 0x80 {
        try checkExternal(rest, algorithm: selector & 2 == 0 ? .ec : .rsa, isPrivate: selector & 1 == 1)
    } else if selector % 2 == 0 {
        guard let reference = try? ItemReference(files: [(path: "fuzz", contents: rest)]) else { return }
        for certificate in reference.certificates {
            try require(Certificate.pem(der: certificate.der) != nil, "a parsed certificate did not encode")
        }
        for key in reference.keys { try check(key) }
    } else {
        guard let archive = try? PKCS12Archive(der: rest, passphrase: SecretBytes(copying: Array("fixture".utf8))) else { return }
        for identity in archive.identities {
            try require(identity.key.applicationLabel == identity.certificate.publicKeyHash, "an identity's halves differ")
            try check(identity.key)
        }
    }
    return
}

/// A parsed key's public half rebuilds from what the keychain would store.
private func check(_ key: KeyMaterial) throws(FuzzViolation) {
    guard case .string(let type)? = key.attributes["type"], case .number(let bits)? = key.attributes["bsiz"] else {
        throw FuzzViolation("a parsed key has no type or size")
    }
    try require(
        KeyMaterial.publicKeyPEM(external: key.external, keyType: type, isPrivate: key.isPrivate, bits: Int(bits)) != nil,
        "a parsed key's public half did not rebuild")
}

/// A key in Apple's external representation: when it parses, what the keychain would store of it
/// reads back as the same key, its public half is its own, and its signature of a digest
/// verifies with that half.
private func checkExternal(_ bytes: SecretBytes, algorithm: KeyMaterial.Algorithm, isPrivate: Bool) throws(FuzzViolation) {
    guard let key = try? KeyMaterial(external: bytes, algorithm: algorithm, isPrivate: isPrivate) else { return }
    let again = try? KeyMaterial(external: key.external, algorithm: algorithm, isPrivate: isPrivate)
    try require(again?.publicBytes == key.publicBytes, "a key did not read back from its external representation")
    guard let publicKey = try? key.publicKey else { throw FuzzViolation("a key's public half did not rebuild") }
    try require(publicKey.publicBytes == key.publicBytes && !publicKey.isPrivate, "a key's public half is another key")
    try check(key)
    guard isPrivate else { return }
    let operation: KeyOperation =
        algorithm == .ec ? .ecdsa(.sha256, hashesMessage: false, raw: false) : .rsaPSS(.sha256, hashesMessage: false)
    let digest = [UInt8](repeating: 0x5A, count: 32)
    guard let signature = try? key.sign(operation, digest) else { throw FuzzViolation("a parsed private key did not sign") }
    try require((try? publicKey.verify(operation, digest, signature: signature)) == true, "a key's signature did not verify")
}
