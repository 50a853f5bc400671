import Foundation
import Security
import SecurityTesting
import Testing

// Keys through `import Security`, as app code makes, stores and uses them: SecKeyCreateRandomKey
// with kSecAttrIsPermanent, SecKeyCreateWithData, kSecValueRef and kSecReturnRef, signatures and
// encryption. Each expectation cites the Apple source it comes from (apple-oss-distributions/
// Security); the known answers are OpenSSL's (Fixtures/Certificates/generate.sh).

private let app = "SKMME9E2Y8.com.example.app"

/// `SecKeyCreateWithData`, its error's code when it fails.
private func key(_ data: Data, type: CFString, keyClass: CFString) -> (SecKey?, Int?) {
    var error: Unmanaged<CFError>?
    let attributes = [kSecAttrKeyType as String: type, kSecAttrKeyClass as String: keyClass] as CFDictionary
    let made = SecKeyCreateWithData(data as CFData, attributes, &error)
    return (made, error.map { CFErrorGetCode($0.takeRetainedValue()) })
}

/// `SecKeyCreateRandomKey`, its error's code when it fails.
private func randomKey(_ parameters: [String: Any]) -> (SecKey?, Int?) {
    var error: Unmanaged<CFError>?
    let made = SecKeyCreateRandomKey(parameters as CFDictionary, &error)
    return (made, error.map { CFErrorGetCode($0.takeRetainedValue()) })
}

/// A signature check, its error's code when it does not verify.
private func verify(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ message: Data, _ signature: Data) -> (Bool, Int?) {
    var error: Unmanaged<CFError>?
    let verified = SecKeyVerifySignature(key, algorithm, message as CFData, signature as CFData, &error)
    return (verified, error.map { CFErrorGetCode($0.takeRetainedValue()) })
}

@Suite struct SecKeyTests {
    let keychain: SecurityTesting.Lease

    init() async throws { keychain = try await SecurityTesting.Lease(inMemory: .accessGroups([app])) }

    /// SecKey.m `SecKeyCreateRandomKey` and `SecKeyCopyAttributeDictionary`, SecECKey.m: a P-256
    /// key's attributes (class and type as Apple's strings), its external representation
    /// (`04‖X‖Y‖K`, 97 bytes; its public half `04‖X‖Y`), read back by SecKeyCreateWithData.
    @Test func aRandomECKeyIsApplesShape() throws {
        let (made, failure) = randomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256])
        let privateKey = try #require(made, "error \(failure ?? 0)")
        let attributes = try #require(SecKeyCopyAttributes(privateKey) as? [String: Any])
        #expect(attributes[kSecAttrKeyClass as String] as? String == kSecAttrKeyClassPrivate as String)
        #expect(attributes[kSecAttrKeyType as String] as? String == kSecAttrKeyTypeECSECPrimeRandom as String)
        #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == 256)
        #expect(attributes[kSecAttrCanSign as String] as? Bool == true)
        let external = try #require(SecKeyCopyExternalRepresentation(privateKey, nil) as Data?)
        #expect(external.count == 97 && external.first == 0x04)
        #expect(attributes[kSecValueData as String] as? Data == external)

        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        let point = try #require(SecKeyCopyExternalRepresentation(publicKey, nil) as Data?)
        #expect(point == external.prefix(65))
        #expect(key(point, type: kSecAttrKeyTypeECSECPrimeRandom, keyClass: kSecAttrKeyClassPublic).0 == publicKey)
        #expect(key(external, type: kSecAttrKeyTypeECSECPrimeRandom, keyClass: kSecAttrKeyClassPrivate).0 == privateKey)
        #expect(publicKey != privateKey)
    }

    /// Known answers: OpenSSL's ECDSA signature of a message verifies with the fixture's public
    /// point, and its RSA PKCS#1 v1.5 signature is made again byte for byte from the fixture's
    /// PKCS#1 key (the deterministic scheme); a changed message does not verify, with Apple's
    /// codes (`SecKeyAdaptors.m`: errSecParam for ECDSA X9.62, errSecVerifyFailed for RSA).
    @Test func signaturesAgreeWithOpenSSL() throws {
        let message = try fixture("signed-message.txt")
        let point = try fixture("leaf-ec-public.der").suffix(65)
        let ecKey = try #require(key(Data(point), type: kSecAttrKeyTypeEC, keyClass: kSecAttrKeyClassPublic).0)
        let ecSignature = try fixture("signed-message.ec-sha256.sig")
        #expect(verify(ecKey, .ecdsaSignatureMessageX962SHA256, message, ecSignature) == (true, nil))
        #expect(verify(ecKey, .ecdsaSignatureMessageX962SHA256, message + [0x21], ecSignature) == (false, Int(errSecParam)))

        let rsaKey = try #require(key(try der(ofPEM: "leaf-rsa-pkcs1.key"), type: kSecAttrKeyTypeRSA, keyClass: kSecAttrKeyClassPrivate).0)
        let signature = SecKeyCreateSignature(rsaKey, .rsaSignatureMessagePKCS1v15SHA256, message as CFData, nil) as Data?
        #expect(signature == (try fixture("signed-message.rsa-pkcs1-sha256.sig")))
        let rsaPublic = try #require(SecKeyCopyPublicKey(rsaKey))
        #expect(verify(rsaPublic, .rsaSignatureMessagePKCS1v15SHA256, message, try #require(signature)) == (true, nil))
        #expect(
            verify(rsaPublic, .rsaSignatureMessagePKCS1v15SHA256, message.dropLast(), try #require(signature)) == (
                false, Int(errSecVerifyFailed)
            ))
    }

    /// Every provided algorithm round-trips on a key of its type, over a message or a digest of
    /// the algorithm's length (a digest of another length is errSecParam, `SecKeyAdaptors.m`:
    /// "bad digest size"); a key of the other type supports none of them.
    @Test func everyProvidedAlgorithmRoundTrips() throws {
        let ec = try #require(randomKey([kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 384]).0)
        let rsa = try #require(randomKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: "2048"]).0)
        let message = Data("the same message".utf8)
        let signing: [(SecKeyAlgorithm, Int?)] = [
            (.ecdsaSignatureMessageX962SHA1, nil), (.ecdsaSignatureMessageX962SHA256, nil), (.ecdsaSignatureMessageX962SHA512, nil),
            (.ecdsaSignatureDigestX962SHA256, 32), (.ecdsaSignatureDigestX962SHA384, 48),
            (.rsaSignatureMessagePKCS1v15SHA256, nil), (.rsaSignatureDigestPKCS1v15SHA256, 32), (.rsaSignatureMessagePSSSHA256, nil),
            (.rsaSignatureMessagePSSSHA512, nil), (.rsaSignatureDigestPSSSHA384, 48),
        ]
        for (algorithm, digestLength) in signing {
            let owner = SecKeyIsAlgorithmSupported(ec, .sign, algorithm) ? ec : rsa
            let other = owner == ec ? rsa : ec
            #expect(SecKeyIsAlgorithmSupported(owner, .sign, algorithm), "\(algorithm.rawValue)")
            #expect(!SecKeyIsAlgorithmSupported(other, .sign, algorithm) && !SecKeyIsAlgorithmSupported(other, .verify, algorithm))
            let input = digestLength.map { Data(repeating: 7, count: $0) } ?? message
            let signature = try #require(SecKeyCreateSignature(owner, algorithm, input as CFData, nil) as Data?, "\(algorithm.rawValue)")
            #expect(verify(try #require(SecKeyCopyPublicKey(owner)), algorithm, input, signature).0, "\(algorithm.rawValue)")
            if let digestLength {
                var error: Unmanaged<CFError>?
                #expect(SecKeyCreateSignature(owner, algorithm, Data(count: digestLength + 1) as CFData, &error) == nil)
                #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == Int(errSecParam))
            }
        }
        let rsaPublic = try #require(SecKeyCopyPublicKey(rsa))
        for algorithm in [SecKeyAlgorithm.rsaEncryptionOAEPSHA256, .rsaEncryptionOAEPSHA1, .rsaEncryptionPKCS1] {
            let sealed = try #require(SecKeyCreateEncryptedData(rsaPublic, algorithm, message as CFData, nil) as Data?)
            #expect(SecKeyCreateDecryptedData(rsa, algorithm, sealed as CFData, nil) as Data? == message)
            #expect(!SecKeyIsAlgorithmSupported(rsaPublic, .decrypt, algorithm) && !SecKeyIsAlgorithmSupported(rsa, .encrypt, algorithm))
            var error: Unmanaged<CFError>?
            #expect(SecKeyCreateDecryptedData(rsa, algorithm, Data(sealed.reversed()) as CFData, &error) == nil)
            #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == Int(errSecParam))
        }
        // Signing needs the private key; an algorithm not provided is supported by nobody.
        #expect(SecKeyCreateSignature(rsaPublic, .rsaSignatureMessagePSSSHA256, message as CFData, nil) == nil)
        #expect(!SecKeyIsAlgorithmSupported(ec, .sign, SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-X962:MD5" as CFString)))
    }

    /// Apple's "Storing Keys in the Keychain": a key made with kSecAttrIsPermanent and a tag is
    /// found again by class, tag and kSecAttrKeyType (the constant, or its number), RSA and EC.
    @Test func applesKeyQueryByTagAndTypeFindsTheKey() throws {
        for (type, bits) in [(kSecAttrKeyTypeRSA, 2048), (kSecAttrKeyTypeECSECPrimeRandom, 256)] {
            let tag = "com.example.keys.\(type)".data(using: .utf8)!
            let attributes: [String: Any] = [
                kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits,
                kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag],
            ]
            var error: Unmanaged<CFError>?
            let privateKey = try #require(SecKeyCreateRandomKey(attributes as CFDictionary, &error), "\(String(describing: error))")
            let getquery: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecAttrKeyType as String: type,
                kSecReturnRef as String: true,
            ]
            var item: CFTypeRef?
            #expect(SecItemCopyMatching(getquery as CFDictionary, &item) == errSecSuccess, "\(type)")
            #expect(item.map { $0 as! SecKey } == privateKey)
            var byNumber = getquery
            byNumber[kSecAttrKeyType as String] = Int(type as String)
            #expect(SecItemCopyMatching(byNumber as CFDictionary, nil) == errSecSuccess, "\(type) as a number")
            var otherType = getquery
            otherType[kSecAttrKeyType as String] = type == kSecAttrKeyTypeRSA ? kSecAttrKeyTypeEC : kSecAttrKeyTypeRSA
            #expect(SecItemCopyMatching(otherType as CFDictionary, nil) == errSecItemNotFound)
        }
    }

    /// A `CFError` is an `NSError`, as on Apple platforms: `as NSError` gives NSOSStatusErrorDomain,
    /// the OSStatus and the message, and `catch let error as NSError` catches it when thrown.
    @Test func aCFErrorIsAnNSError() throws {
        var unmanaged: Unmanaged<CFError>?
        let attributes =
            [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate] as CFDictionary
        #expect(SecKeyCreateWithData(Data("not a key".utf8) as CFData, attributes, &unmanaged) == nil)
        let error = try #require(unmanaged?.takeRetainedValue())
        let bridged = error as Error as NSError
        #expect(bridged.domain == NSOSStatusErrorDomain)
        #expect(bridged.code == Int(errSecParam) || bridged.code == Int(errSecDecode), "\(bridged.code)")
        #expect(bridged.localizedDescription == CFErrorCopyDescription(error) as String)
        #expect(!bridged.localizedDescription.contains("CFError error"), "\(bridged.localizedDescription)")
        do {
            throw error as Error
        } catch let caught as NSError {
            #expect(caught.code == CFErrorGetCode(error))
        }
    }

    /// What app code checks before a cast, and sizes buffers by: `CFGetTypeID(ref) ==
    /// SecKeyGetTypeID()` on a kSecReturnRef result, and SecKeyGetBlockSize (an RSA key's modulus
    /// bytes, its signature's length); ECDH parameters spelled as Swift imports them.
    @Test func typeIDsBlockSizesAndKeyExchangeParametersAreApplesSpelling() throws {
        let tag = Data("com.example.typeid".utf8)
        let rsa = try #require(
            randomKey([
                kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048,
                kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag],
            ]).0)
        var found: CFTypeRef?
        let query: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnRef as String: true,
        ]
        #expect(SecItemCopyMatching(query as CFDictionary, &found) == errSecSuccess)
        #expect(CFGetTypeID(found) == SecKeyGetTypeID())
        #expect(CFGetTypeID(rsa) != SecCertificateGetTypeID() && CFGetTypeID(rsa) != SecIdentityGetTypeID())
        #expect(CFGetTypeID(Data() as CFData) == CFDataGetTypeID() && CFGetTypeID("x" as CFString) == CFStringGetTypeID())
        #expect(CFGetTypeID([:] as CFDictionary) == CFDictionaryGetTypeID() && CFGetTypeID(kCFBooleanTrue) == CFBooleanGetTypeID())
        #expect(Set([SecKeyGetTypeID(), SecCertificateGetTypeID(), SecIdentityGetTypeID(), SecAccessControlGetTypeID()]).count == 4)

        #expect(SecKeyGetBlockSize(rsa) == 256)
        let signature = try #require(SecKeyCreateSignature(rsa, .rsaSignatureMessagePSSSHA256, Data("m".utf8) as CFData, nil) as Data?)
        #expect(signature.count == SecKeyGetBlockSize(rsa))
        let p256 = try #require(
            randomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]).0)
        let p384 = try #require(
            randomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 384]).0)
        #expect(SecKeyGetBlockSize(p256) == 32 && SecKeyGetBlockSize(p384) == 48)

        let peer = try #require(
            randomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]).0)
        let parameters =
            [
                SecKeyKeyExchangeParameter.requestedSize.rawValue: 32, SecKeyKeyExchangeParameter.sharedInfo.rawValue: Data("info".utf8),
            ] as [CFString: Any] as CFDictionary
        let ours =
            SecKeyCopyKeyExchangeResult(
                p256, .ecdhKeyExchangeStandardX963SHA256, try #require(SecKeyCopyPublicKey(peer)), parameters, nil) as Data?
        let theirs =
            SecKeyCopyKeyExchangeResult(
                peer, .ecdhKeyExchangeStandardX963SHA256, try #require(SecKeyCopyPublicKey(p256)), parameters, nil) as Data?
        #expect(ours != nil && ours == theirs && ours?.count == 32)
    }

    /// SecRandomCopyBytes fills the caller's buffer in place, every byte of it and nothing past it;
    /// a negative count is errSecParam, zero bytes is success.
    @Test func randomBytesFillTheCallersBuffer() {
        var buffer = [UInt8](repeating: 0, count: 64)
        let status = buffer.withUnsafeMutableBytes { SecRandomCopyBytes(kSecRandomDefault, 48, $0.baseAddress!) }
        #expect(status == errSecSuccess)
        #expect(buffer.prefix(48).contains { $0 != 0 } && buffer.suffix(16).allSatisfy { $0 == 0 })
        #expect(buffer.withUnsafeMutableBytes { SecRandomCopyBytes(kSecRandomDefault, -1, $0.baseAddress!) } == errSecParam)
        #expect(buffer.withUnsafeMutableBytes { SecRandomCopyBytes(kSecRandomDefault, 0, $0.baseAddress!) } == errSecSuccess)
    }

    /// RSA decryption fails with one message whatever failed (the review's L6): a server that
    /// reports it cannot be asked which padding check a forged ciphertext failed.
    @Test func everyRSADecryptionFailureSaysTheSame() throws {
        let rsa = try #require(randomKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048]).0)
        let publicKey = try #require(SecKeyCopyPublicKey(rsa))
        for algorithm in [SecKeyAlgorithm.rsaEncryptionPKCS1, .rsaEncryptionOAEPSHA256] {
            let sealed = try #require(SecKeyCreateEncryptedData(publicKey, algorithm, Data("hi".utf8) as CFData, nil) as Data?)
            var messages: Set<String> = []
            for forged in [Data(sealed.reversed()), Data(repeating: 0, count: sealed.count), Data(repeating: 0xFF, count: sealed.count)] {
                var error: Unmanaged<CFError>?
                #expect(SecKeyCreateDecryptedData(rsa, algorithm, forged as CFData, &error) == nil)
                let failure = try #require(error?.takeRetainedValue())
                #expect(CFErrorGetCode(failure) == Int(errSecParam))
                messages.insert(CFErrorCopyDescription(failure) as String)
            }
            #expect(messages.count == 1, "\(messages)")
            #expect(messages.allSatisfy { !$0.contains("OpenSSL") && !$0.lowercased().contains("padding") }, "\(messages)")
        }
    }

    /// si-44-seckey-ies.m: ECIES seals to a public key and opens with its private key, on P-256
    /// (AES-128) and P-384 (AES-256), with a zero or a derived IV: the ephemeral point, the
    /// ciphertext and a 16-byte tag. A changed tag, ciphertext, point tag or point does not open
    /// (errSecParam); a private key does not encrypt, a public one does not decrypt.
    @Test func eciesSealsToAPublicKeyAndOpensWithItsPrivateKey() throws {
        let message = Data("hello".utf8)
        for bits in [256, 384] {
            let privateKey = try #require(
                randomKey([kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: bits]).0)
            let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
            let pointLength = 2 * ((bits + 7) / 8) + 1
            for algorithm in [
                SecKeyAlgorithm.eciesEncryptionStandardX963SHA256AESGCM, .eciesEncryptionStandardVariableIVX963SHA256AESGCM,
                .eciesEncryptionCofactorX963SHA384AESGCM,
            ] {
                #expect(
                    SecKeyIsAlgorithmSupported(publicKey, .encrypt, algorithm)
                        && SecKeyIsAlgorithmSupported(privateKey, .decrypt, algorithm))
                #expect(
                    !SecKeyIsAlgorithmSupported(privateKey, .encrypt, algorithm)
                        && !SecKeyIsAlgorithmSupported(publicKey, .decrypt, algorithm))
                let sealed = try #require(SecKeyCreateEncryptedData(publicKey, algorithm, message as CFData, nil) as Data?)
                #expect(sealed.count == pointLength + message.count + 16 && sealed.first == 0x04)
                #expect(SecKeyCreateDecryptedData(privateKey, algorithm, sealed as CFData, nil) as Data? == message)
                for index in [sealed.count - 8, sealed.count - 20, 0, 1] {
                    var broken = [UInt8](sealed)
                    broken[index] ^= 0xFF
                    var error: Unmanaged<CFError>?
                    #expect(SecKeyCreateDecryptedData(privateKey, algorithm, Data(broken) as CFData, &error) == nil, "byte \(index)")
                    #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == Int(errSecParam))
                }
                #expect(SecKeyCreateDecryptedData(privateKey, algorithm, sealed.prefix(pointLength + 15) as CFData, nil) == nil)
            }
        }
        // A message sealed to the fixture's key by another implementation (Python's cryptography,
        // Fixtures/Certificates/ecies-fixture.py) opens.
        let fixtureKey = try #require(
            key(try fixture("leaf-ec-external.bin"), type: kSecAttrKeyTypeEC, keyClass: kSecAttrKeyClassPrivate).0)
        let variableIV = try fixture("ecies-variable-iv-sha256.bin")
        let zeroIV = try fixture("ecies-sha256.bin")
        func open(_ sealed: Data, _ algorithm: SecKeyAlgorithm) -> Data? {
            SecKeyCreateDecryptedData(fixtureKey, algorithm, sealed as CFData, nil) as Data?
        }
        #expect(open(variableIV, .eciesEncryptionStandardVariableIVX963SHA256AESGCM) == Data("keychainctl sealed this".utf8))
        #expect(open(zeroIV, .eciesEncryptionStandardX963SHA256AESGCM) == Data("keychainctl sealed this".utf8))
        #expect(open(variableIV, .eciesEncryptionStandardX963SHA256AESGCM) == nil)
        #expect(open(zeroIV, .eciesEncryptionStandardVariableIVX963SHA256AESGCM) == nil)
    }

    /// RFC 4754 signatures are the two numbers side by side, each as wide as the curve: OpenSSL's
    /// X9.62 signature of the message, so rewritten, verifies; one changed byte does not, with
    /// errSecVerifyFailed (`SecKeyAdaptors.m`: "Wrong ECDSA RFC4754 signature").
    @Test func rfc4754SignaturesAreTheNumbersSideBySide() throws {
        let message = try fixture("signed-message.txt")
        let point = try fixture("leaf-ec-public.der").suffix(65)
        let publicKey = try #require(key(Data(point), type: kSecAttrKeyTypeEC, keyClass: kSecAttrKeyClassPublic).0)
        let raw = try #require(Self.numbers(ofX962: try fixture("signed-message.ec-sha256.sig")))
        #expect(verify(publicKey, .ecdsaSignatureMessageRFC4754SHA256, message, raw) == (true, nil))
        var changed = raw
        changed[10] ^= 1
        #expect(verify(publicKey, .ecdsaSignatureMessageRFC4754SHA256, message, changed) == (false, Int(errSecVerifyFailed)))
        #expect(verify(publicKey, .ecdsaSignatureMessageRFC4754SHA256, message, raw.dropLast()) == (false, Int(errSecVerifyFailed)))

        let privateKey = try #require(
            key(try fixture("leaf-ec-external.bin"), type: kSecAttrKeyTypeEC, keyClass: kSecAttrKeyClassPrivate).0)
        let made = try #require(SecKeyCreateSignature(privateKey, .ecdsaSignatureMessageRFC4754SHA256, message as CFData, nil) as Data?)
        #expect(made.count == 64)
        #expect(verify(publicKey, .ecdsaSignatureMessageRFC4754SHA256, message, made) == (true, nil))
    }

    /// An X9.62 signature's two INTEGERs, each padded to 32 bytes (P-256).
    static func numbers(ofX962 der: Data) -> Data? {
        var bytes = [UInt8](der)
        guard bytes.count > 8, bytes.removeFirst() == 0x30 else { return nil }
        bytes.removeFirst()  // the SEQUENCE's length (a P-256 signature is under 128 bytes)
        var numbers = Data()
        for _ in 0..<2 {
            guard bytes.count > 2, bytes.removeFirst() == 0x02 else { return nil }
            let length = Int(bytes.removeFirst())
            guard bytes.count >= length else { return nil }
            let value = bytes.prefix(length).drop { $0 == 0 }
            guard value.count <= 32 else { return nil }
            numbers += Data(repeating: 0, count: 32 - value.count) + value
            bytes.removeFirst(length)
        }
        return numbers
    }

    /// SecKeyAdaptors.m ECDH: the shared secret OpenSSL derives from the fixtures' two keys, and
    /// its X9.63 derivation (SHA-256, a requested size, shared info), from either side; a missing
    /// size, or a key on another curve, is errSecParam.
    @Test func aKeyExchangeAgreesWithOpenSSL() throws {
        let mine = try #require(key(try fixture("leaf-ec-external.bin"), type: kSecAttrKeyTypeEC, keyClass: kSecAttrKeyClassPrivate).0)
        let theirs = try #require(key(try fixture("leaf-nocn-point.bin"), type: kSecAttrKeyTypeEC, keyClass: kSecAttrKeyClassPublic).0)
        func exchange(_ algorithm: SecKeyAlgorithm, _ parameters: [String: Any]) -> (Data?, Int?) {
            var error: Unmanaged<CFError>?
            let result = SecKeyCopyKeyExchangeResult(mine, algorithm, theirs, parameters as CFDictionary, &error) as Data?
            return (result, error.map { CFErrorGetCode($0.takeRetainedValue()) })
        }
        #expect(exchange(.ecdhKeyExchangeStandard, [:]).0 == (try fixture("ecdh-leaf-nocn.bin")))
        #expect(exchange(.ecdhKeyExchangeCofactor, [:]).0 == (try fixture("ecdh-leaf-nocn.bin")))
        let derivation: [String: Any] = [
            kSecKeyKeyExchangeParameterRequestedSize as String: 20,
            kSecKeyKeyExchangeParameterSharedInfo as String: Data("keychai".utf8),
        ]
        #expect(exchange(.ecdhKeyExchangeStandardX963SHA256, derivation).0 == (try fixture("ecdh-leaf-nocn-x963-sha256.bin")))
        #expect(exchange(.ecdhKeyExchangeStandardX963SHA256, [:]).1 == Int(errSecParam))
        // Without shared info (`openssl kdf -keylen 20 -kdfopt digest:SHA256 -kdfopt hexkey:… X963KDF`).
        let sizeOnly = [kSecKeyKeyExchangeParameterRequestedSize as String: 20]
        #expect(
            exchange(.ecdhKeyExchangeStandardX963SHA256, sizeOnly).0?.map { String(format: "%02x", $0) }.joined()
                == "c9bf95ad8c6b0e241e84120d74c91be81ce0ff9d")
        let selfHolding = NSMutableArray()
        selfHolding.add(selfHolding)
        var looped = derivation
        looped[kSecKeyKeyExchangeParameterSharedInfo as String] = selfHolding
        #expect(exchange(.ecdhKeyExchangeStandardX963SHA256, looped).1 == Int(errSecParam))

        let ephemeral = try #require(randomKey([kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 256]).0)
        let both = try [mine, ephemeral].map { own -> Data in
            let other = try #require(SecKeyCopyPublicKey(own == mine ? ephemeral : mine))
            return try #require(SecKeyCopyKeyExchangeResult(own, .ecdhKeyExchangeStandard, other, [:] as CFDictionary, nil) as Data?)
        }
        #expect(both[0] == both[1])
        let p384 = try #require(randomKey([kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 384]).0)
        var error: Unmanaged<CFError>?
        #expect(SecKeyCopyKeyExchangeResult(mine, .ecdhKeyExchangeStandard, p384, [:] as CFDictionary, &error) == nil)
        #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == Int(errSecParam))
        #expect(!SecKeyIsAlgorithmSupported(theirs, .keyExchange, .ecdhKeyExchangeStandard))
    }

    /// SecKey.m `SecKeyCreateRandomKey`: a half is stored only when its attributes (its own
    /// dictionary, then the top level's) say kSecAttrIsPermanent; SecItem.m stores it by
    /// reference. The stored private key comes back by kSecReturnRef as the same key, and signs
    /// what the original public key verifies; kSecReturnData gives its external representation.
    @Test func aPermanentKeyIsStoredAndComesBackAsItsObject() throws {
        let tag = Data("com.example.signing".utf8)
        let (made, failure) = randomKey([
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecAttrLabel as String: "signing key",
            kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag],
        ])
        let privateKey = try #require(made, "error \(failure ?? 0)")

        let query: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnRef as String: true,
        ]
        let found = try #require(copyMatching(query).1 as? SecKey)
        #expect(found == privateKey)
        let message = Data("stored, then used".utf8)
        let signature = try #require(SecKeyCreateSignature(found, .ecdsaSignatureMessageX962SHA256, message as CFData, nil) as Data?)
        #expect(verify(try #require(SecKeyCopyPublicKey(privateKey)), .ecdsaSignatureMessageX962SHA256, message, signature).0)

        var both = query
        both[kSecReturnAttributes as String] = true
        both[kSecReturnData as String] = true
        let dictionary = try #require(copyMatching(both).1 as? [String: Any])
        #expect(dictionary[kSecValueRef as String] as? SecKey == privateKey)
        #expect(dictionary[kSecValueData as String] as? Data == SecKeyCopyExternalRepresentation(privateKey, nil) as Data?)
        #expect(dictionary[kSecAttrLabel as String] as? String == "signing key")
        #expect(dictionary[kSecAttrAccessGroup as String] as? String == app)

        // The public half was not asked to be permanent: it is not stored.
        let publicQuery: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
        #expect(copyMatching(publicQuery).0 == errSecItemNotFound)
        #expect(SecItemDelete([kSecValueRef as String: privateKey] as CFDictionary) == errSecSuccess)
        #expect(copyMatching(query).0 == errSecItemNotFound)
    }

    /// SecItem.m `SecItemAttributesPrepare`: a key added by reference is found by the same
    /// reference (its usage flags and kSecAttrIsPermanent left out of the query); a second add is
    /// errSecDuplicateItem; another app's groups do not reach it.
    @Test func aKeyIsAddedAndFoundByReferenceInItsGroupsAlone() throws {
        let privateKey = try #require(randomKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 1024]).0)
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        #expect(SecItemAdd([kSecValueRef as String: publicKey] as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemAdd([kSecValueRef as String: publicKey] as CFDictionary, nil) == errSecDuplicateItem)
        #expect(copyMatching([kSecValueRef as String: publicKey, kSecReturnRef as String: true]).1 as? SecKey == publicKey)
        #expect(copyMatching([kSecValueRef as String: privateKey]).0 == errSecItemNotFound)

        try SecurityTesting.actAs(.accessGroups(["SKMME9E2Y8.com.example.other"]))
        #expect(copyMatching([kSecValueRef as String: publicKey, kSecReturnRef as String: true]).0 == errSecItemNotFound)
        #expect(SecItemDelete([kSecValueRef as String: publicKey] as CFDictionary) == errSecItemNotFound)
    }

    /// What is not a key makes none, with errSecParam and never a crash: bytes of the wrong length
    /// or shape, a missing or unprovided type or class, a size Apple does not make; a Secure
    /// Enclave key is errSecUnimplemented (there is none); a stored private key is still a key.
    @Test func whatIsNotAKeyMakesNone() throws {
        let point = try fixture("leaf-ec-public.der").suffix(65)
        let hostile: [(String, Data, CFString, CFString)] = [
            ("a truncated point", Data(point.dropLast()), kSecAttrKeyTypeEC, kSecAttrKeyClassPublic),
            ("a point off the curve", Data([0x04] + [UInt8](repeating: 1, count: 64)), kSecAttrKeyTypeEC, kSecAttrKeyClassPublic),
            ("a public point as a private key", Data(point), kSecAttrKeyTypeEC, kSecAttrKeyClassPrivate),
            ("an EC point as RSA", Data(point), kSecAttrKeyTypeRSA, kSecAttrKeyClassPublic),
            ("empty", Data(), kSecAttrKeyTypeRSA, kSecAttrKeyClassPrivate),
            ("nested a million deep", Data(repeating: 0x30, count: 1_000_000), kSecAttrKeyTypeRSA, kSecAttrKeyClassPrivate),
            ("a DSA type", Data(point), kSecAttrKeyTypeDSA, kSecAttrKeyClassPublic),
            ("a symmetric class", Data(count: 32), kSecAttrKeyTypeEC, kSecAttrKeyClassSymmetric),
        ]
        for (what, data, type, keyClass) in hostile {
            let (made, code) = key(data, type: type, keyClass: keyClass)
            #expect(made == nil && code == Int(errSecParam), "\(what)")
        }
        #expect(randomKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 512]).1 == Int(errSecParam))
        #expect(randomKey([kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 255]).1 == Int(errSecParam))
        #expect(randomKey([kSecAttrKeyType as String: kSecAttrKeyTypeEC]).1 == Int(errSecParam))
        #expect(randomKey([kSecAttrKeySizeInBits as String: 256]).1 == Int(errSecParam))
        let enclave: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: "com.apple.setoken",
        ]
        #expect(randomKey(enclave).1 == Int(errSecUnimplemented))
        // A half's attributes that hold themselves are read without walking them: errSecParam.
        let selfHolding = NSMutableDictionary()
        selfHolding[kSecAttrIsPermanent as String] = true
        selfHolding[kSecAttrLabel as String] = selfHolding
        let looped: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 256, kSecPrivateKeyAttrs as String: selfHolding,
        ]
        #expect(randomKey(looped).1 == Int(errSecParam))
        var error: Unmanaged<CFError>?
        let loopedType = [kSecAttrKeyType as String: selfHolding, kSecAttrKeyClass as String: kSecAttrKeyClassPublic] as CFDictionary
        #expect(SecKeyCreateWithData(Data(point) as CFData, loopedType, &error) == nil)
        #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == Int(errSecParam))
        #expect(
            randomKey([
                kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 256, kSecPrivateKeyAttrs as String: "x",
            ]).1 == Int(errSecParam))
    }
}
