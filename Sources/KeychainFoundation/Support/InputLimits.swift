/// The cap on every input keychainctl reads, in one table (docs/SECURITY.md, "Limits"). Reading stops at
/// the cap, so an endless input (`/dev/zero`) costs at most the cap in memory.
package enum InputLimits {
    /// An item's secret (`kSecValueData`): stdin, `--data-file`, `-w` or a prompt. Over it is
    /// errSecParam naming the maximum. Peak memory of an add is about four times the secret.
    package static let secretBytes = 16 << 20
    /// A passphrase: a descriptor, `KEYCHAINCTL_PASSPHRASE` or a prompt line.
    package static let passphraseBytes = 4096
    /// A key file: 44 base64 characters for 32 bytes, with room for a line ending and spaces, and
    /// the line `unlock --to-key-file` adds (`KeyFile.unlockedNote`, 80 bytes).
    package static let keyFileBytes = 160
    /// A profile, entitlements file or provisioning profile.
    package static let profileBytes = 1 << 20
    /// One line of a jsonl import (an item with a 16 MiB secret in base64 fits).
    package static let jsonLineBytes = 24 << 20
    /// A whole json import document (jsonl streams instead, one line at a time).
    package static let jsonDocumentBytes = 256 << 20
    /// A certificate, key or PKCS#12 file (`add --ref-file`, `import --input-format pkcs12`): a
    /// long chain in PEM is tens of kilobytes.
    package static let objectFileBytes = 1 << 20
    /// A dotenv file (`exec --env-file`, `import`): read whole into guarded memory.
    package static let dotenvBytes = 16 << 20

    /// `bytes` for a message: "16 MiB", "4096 bytes".
    package static func describe(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }
}
