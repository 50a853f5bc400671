import KeychainCore
import TextEscaping

/// Durations on the command line (`--timeout 15m`, `--idle 1h30m`): whole numbers with a unit
/// each (`s`, `m`, `h`, `d`), run together; a bare number is seconds; `0` is "no limit".
enum DurationText {
    /// The longest duration accepted: a year (the kernel keeps expiry in 32-bit seconds).
    static let maximumSeconds: UInt32 = 366 * 86_400

    /// The seconds `text` spells; errSecParam (exit 206) naming `option` when it spells none.
    static func seconds(_ text: String, option: String) throws(KeychainError) -> UInt32 {
        var total: UInt64 = 0
        var number: UInt64?
        let bad = KeychainError(
            .param, hint: "--\(option) '\(text.terminalSafe)' is not a duration: use a number with s, m, h or d (15m, 1h30m, 90s), or 0.")
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let next = (number ?? 0) * 10 + UInt64(byte - UInt8(ascii: "0"))
                guard next <= UInt64(maximumSeconds) else { throw bad }
                number = next
            default:
                guard let value = number, let unit = unitSeconds(byte) else { throw bad }
                total += value * unit
                number = nil
            }
            if total > UInt64(maximumSeconds) {
                throw KeychainError(
                    .param, hint: "--\(option) '\(text.terminalSafe)' is longer than a year, the most keychainctl caches a key for.")
            }
        }
        guard !text.isEmpty else { throw bad }
        if let number {
            guard total == 0 else { throw bad }  // "1h30" is ambiguous
            total = number
        }
        return UInt32(total)
    }

    private static func unitSeconds(_ byte: UInt8) -> UInt64? {
        switch byte {
        case UInt8(ascii: "s"): 1
        case UInt8(ascii: "m"): 60
        case UInt8(ascii: "h"): 3_600
        case UInt8(ascii: "d"): 86_400
        default: nil
        }
    }

    /// `seconds` as the shortest text `seconds(_:option:)` reads back (`1h30m`).
    static func describe(_ seconds: UInt32) -> String {
        if seconds == 0 { return "0" }
        var left = seconds
        var text = ""
        for (unit, size) in [("d", UInt32(86_400)), ("h", 3_600), ("m", 60), ("s", 1)] where left >= size {
            text += "\(left / size)\(unit)"
            left %= size
        }
        return text
    }
}
