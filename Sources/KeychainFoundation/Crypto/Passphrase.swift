/// Passphrase normalisation.
package enum Passphrase {
    /// `passphrase` in Unicode NFC, in guarded memory. ASCII (already NFC) and invalid UTF-8 (not
    /// text: used as bytes) come back as they are; other text passes through one ordinary string
    /// while the standard library normalises it (it has no NFC over raw buffers).
    package static func nfc(_ passphrase: SecretBytes) -> SecretBytes {
        let needsWork = passphrase.withUnsafeBytes { bytes in bytes.contains { $0 >= 0x80 } }
        guard needsWork,
            let text = passphrase.withUnsafeBytes({ String(validating: $0, as: UTF8.self) })
        else { return passphrase }
        let normalized = SecretBytes(count: 0)
        text._withNFCCodeUnits { unit in
            var unit = unit
            withUnsafeBytes(of: &unit) { normalized.append($0) }
        }
        return normalized
    }
}
