import Glibc
import KeychainFormats
import KeychainFoundation

/// A version-2 store's marker (`keychainctl-cloud`): what says the folder is a store, sealed under
/// the current account key with the epoch in it, followed by one notice per rotation, each sealed
/// under the key it replaced. A device still holding an old key opens its notice and is told the
/// key was rotated, and when, instead of a bare "does not open".
package struct CloudMarker {
    /// The current part, then the notices, newest first.
    private var parts: [[UInt8]]

    static let byteLimit = 1 << 20
    private static let magic = Array("kcc2".utf8)
    private static let text = Array("keychainctl cloud store v2".utf8)
    private static let currentData = SealFormat.lengthPrefixed([Array("kcc2 marker".utf8)])
    private static let noticeData = SealFormat.lengthPrefixed([Array("kcc2 rotation notice".utf8)])

    /// The marker of epoch `epoch` under `key`, after `notices` (each sealed under a former key).
    init(epoch: UInt32, key: SecretBytes, notices: [[UInt8]] = []) {
        var plain = Self.text
        withUnsafeBytes(of: epoch.bigEndian) { plain += $0 }
        parts = [plain.withUnsafeBytes { AEAD.seal($0, key: key, associatedData: Self.currentData) }] + notices
    }

    /// The marker `bytes` holds; `nil` when it is not a version-2 marker (a version-1 one is one
    /// sealed box).
    package init?(parsing bytes: [UInt8]) {
        var cursor = ByteCursor(bytes: bytes)
        guard cursor.take(4) == Self.magic, let count = cursor.count(each: 4), count >= 1 else { return nil }
        var parts: [[UInt8]] = []
        for _ in 0..<count {
            guard let length = cursor.integer(UInt32.self), let part = cursor.take(Int(length)) else { return nil }
            parts.append(part)
        }
        guard cursor.isAtEnd else { return nil }
        self.parts = parts
    }

    package var bytes: [UInt8] {
        var out = Self.magic
        withUnsafeBytes(of: UInt32(parts.count).bigEndian) { out += $0 }
        for part in parts {
            withUnsafeBytes(of: UInt32(part.count).bigEndian) { out += $0 }
            out += part
        }
        return out
    }

    /// The notices of former keys, newest first.
    var notices: [[UInt8]] { Array(parts.dropFirst()) }

    /// What a former key learns: the epoch its key was replaced at, and when.
    package struct Notice: CustomStringConvertible {
        var epoch: UInt32
        var seconds: UInt64

        package var description: String { "at epoch \(epoch) (\(ISO8601.format(Int64(seconds) * 1000)))" }
    }

    package enum Opened {
        case current(epoch: UInt32)
        case rotated(Notice)
    }

    /// Whether `key` is the current key (and the epoch) or a former one (and its notice); `nil`
    /// when it is neither.
    package func open(with key: SecretBytes) -> Opened? {
        if let plain = AEAD.openPublic(parts[0], key: key, associatedData: Self.currentData), plain.count == Self.text.count + 4,
            Array(plain.prefix(Self.text.count)) == Self.text
        {
            return .current(epoch: UInt32(ByteOrder.bigEndian(plain.suffix(4))))
        }
        for notice in notices {
            guard let plain = AEAD.openPublic(notice, key: key, associatedData: Self.noticeData), plain.count == 7 + 12 else { continue }
            return .rotated(Notice(epoch: UInt32(ByteOrder.bigEndian(plain[7..<11])), seconds: ByteOrder.bigEndian(plain[11..<19])))
        }
        return nil
    }

    /// The epoch `key` opens as the current key.
    func epochOpened(with key: SecretBytes) -> UInt32? {
        guard case .current(let epoch)? = open(with: key) else { return nil }
        return epoch
    }

    /// A notice, sealed under the key being replaced, that it was replaced by epoch `epoch`'s now.
    static func notice(rotatingTo epoch: UInt32, oldKey: SecretBytes) -> [UInt8] {
        var plain = Array("rotated".utf8)
        withUnsafeBytes(of: epoch.bigEndian) { plain += $0 }
        withUnsafeBytes(of: UInt64(max(0, time(nil))).bigEndian) { plain += $0 }
        return plain.withUnsafeBytes { AEAD.seal($0, key: oldKey, associatedData: noticeData) }
    }
}
