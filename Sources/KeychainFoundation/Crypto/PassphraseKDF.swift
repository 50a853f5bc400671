import CSodium

/// Argon2id parameters, stored in the keychain file as one record that the key check
/// authenticates (from schema version 2), and validated before use: a file is untrusted input, and
/// unchecked parameters would over-read a short salt, trap on a huge memory size or hang for hours.
package struct PassphraseKDF: Sendable, Equatable {
    /// libsodium's cost presets.
    package enum Preset: String, Sendable, CaseIterable {
        /// 2 passes over 64 MiB: about a tenth of a second here.
        case interactive
        /// 3 passes over 256 MiB: about half a second here. The default for new keychains.
        case moderate
        /// 4 passes over 1 GiB: several seconds.
        case sensitive
    }

    /// How the passphrase's bytes are fed to Argon2id.
    package enum Encoding: UInt8, Sendable {
        /// Exactly as given (keychains made by schema version 1).
        case raw = 0
        /// Unicode NFC when it is valid UTF-8, so that `é` typed as one code point or as `e` and a
        /// combining accent derives the same key (schema version 2).
        case nfc = 1
    }

    /// Argon2id passes.
    package let opsLimit: UInt64
    /// Argon2id memory in bytes.
    package let memLimit: UInt64
    /// The file's random salt.
    package let salt: [UInt8]
    /// How the passphrase is normalised.
    package let encoding: Encoding

    /// Bounds a file's parameters must lie within: libsodium's minimums, and at most twice the
    /// `sensitive` preset's cost (ops) and exactly its memory, so that no file can make a call hang
    /// or exhaust memory.
    package static let opsRange = UInt64(crypto_pwhash_opslimit_min())...UInt64(2 * crypto_pwhash_opslimit_sensitive())
    package static let memRange = UInt64(crypto_pwhash_memlimit_min())...UInt64(crypto_pwhash_memlimit_sensitive())
    /// The one salt length.
    package static let saltBytes = Int(crypto_pwhash_saltbytes())

    /// Validated parameters; a StoreError (exit 74, a damaged keychain) names what is out of bounds.
    package init(opsLimit: UInt64, memLimit: UInt64, salt: [UInt8], encoding: Encoding) throws(StoreError) {
        guard Self.opsRange.contains(opsLimit) else {
            throw StoreError("the keychain's passphrase parameters are damaged: Argon2id passes \(opsLimit) outside \(Self.opsRange)")
        }
        guard Self.memRange.contains(memLimit) else {
            throw StoreError("the keychain's passphrase parameters are damaged: Argon2id memory \(memLimit) bytes outside \(Self.memRange)")
        }
        guard salt.count == Self.saltBytes else {
            throw StoreError("the keychain's passphrase parameters are damaged: a salt of \(salt.count) bytes, not \(Self.saltBytes)")
        }
        self.opsLimit = opsLimit
        self.memLimit = memLimit
        self.salt = salt
        self.encoding = encoding
    }

    /// Fresh parameters for a new keychain.
    package static func fresh(_ preset: Preset) -> PassphraseKDF {
        let (ops, mem): (Int, Int) =
            switch preset {
            case .interactive: (Int(crypto_pwhash_opslimit_interactive()), crypto_pwhash_memlimit_interactive())
            case .moderate: (Int(crypto_pwhash_opslimit_moderate()), crypto_pwhash_memlimit_moderate())
            case .sensitive: (Int(crypto_pwhash_opslimit_sensitive()), crypto_pwhash_memlimit_sensitive())
            }
        // In bounds by construction.
        return try! PassphraseKDF(opsLimit: UInt64(ops), memLimit: UInt64(mem), salt: Sodium.randomBytes(saltBytes), encoding: .nfc)
    }

    private static let recordVersion: UInt8 = 1
    private static let argon2id13: UInt8 = 2
    private static let recordBytes = 3 + 8 + 8 + saltBytes

    /// The stored record: version, algorithm, encoding, passes and memory (little-endian), salt.
    package var record: [UInt8] {
        var out: [UInt8] = [Self.recordVersion, Self.argon2id13, encoding.rawValue]
        withUnsafeBytes(of: opsLimit.littleEndian) { out += $0 }
        withUnsafeBytes(of: memLimit.littleEndian) { out += $0 }
        return out + salt
    }

    /// Parses and validates a stored record.
    package init(record: [UInt8]) throws(StoreError) {
        guard record.count == Self.recordBytes, record[0] == Self.recordVersion, record[1] == Self.argon2id13,
            let encoding = Encoding(rawValue: record[2])
        else { throw StoreError("the keychain's passphrase parameters are damaged: not an Argon2id record") }
        func number(at offset: Int) -> UInt64 { ByteOrder.littleEndian(record[offset..<offset + 8]) }
        try self.init(opsLimit: number(at: 3), memLimit: number(at: 11), salt: Array(record[19...]), encoding: encoding)
    }

    /// Derives the 32-byte keychain key from `passphrase`; `nil` if libsodium refuses (out of memory).
    package func deriveKey(from passphrase: SecretBytes) -> SecretBytes? {
        Self.counted?.add()
        let input = encoding == .nfc ? Passphrase.nfc(passphrase) : passphrase
        let key = SecretBytes(count: 32)
        let status: Int32 = key.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { pass in
                crypto_pwhash(
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self), 32,
                    pass.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(pass.count),
                    salt, opsLimit, Int(memLimit), crypto_pwhash_alg_argon2id13())
            }
        }
        return status == 0 ? key : nil
    }

    /// Counts the keys derived from passphrases by the task that binds it (`$counted.withValue`):
    /// an open derives one, however many upgrades it runs (`KeychainMigrator`), which the tests
    /// check while other tests derive keys in parallel.
    @TaskLocal package static var counted: WorkCounter?
}
