import Glibc
import KeychainFormats
import KeychainFoundation

/// Masks secrets in a command's output as it streams: each secret value and each of its lines (with
/// and without the whitespace around them), and the forms a program commonly prints it in — base64
/// at each of the three byte offsets it can start at, also wrapped at 64 and 76 columns, base64url,
/// hex, URL- and JSON-escaped — are replaced by `[keychainctl:NAME]`. Forms shorter than
/// `minimumBytes` are not masked (the caller warns). Masking is for accidental leaks: a command
/// that means to print a secret can always transform it first.
///
/// Streaming: output is decided up to the last newline, or up to the longest form less one byte
/// before the end, whichever is further; the rest is held back until more arrives or `flush`. A
/// secret cut by a newline is still masked line by line. The forms live in guarded memory.
package final class SecretMasker {
    /// Forms shorter than this are not masked: too many false matches, too little to hide.
    package static let minimumBytes = 4

    /// Every form, back to back, in guarded memory.
    private let arena: SecretBytes
    /// Each form: where it is in the arena, and which replacement it takes.
    private var forms: [(offset: Int, length: Int, replacement: Int)] = []
    private var replacements: [[UInt8]] = []
    /// The forms starting with each byte, longest first.
    private var byFirstByte = [[Int]](repeating: [], count: 256)
    private var longest = 0
    /// Output not yet decided.
    private var pending: [UInt8] = []

    /// The names whose values were too short to mask.
    package private(set) var unmasked: [String] = []

    /// A masker for `secrets` (name and value).
    package init(_ secrets: [(name: String, value: SecretBytes)]) {
        arena = SecretBytes(count: 0)
        for (name, value) in secrets {
            guard value.count >= Self.minimumBytes else {
                if value.count > 0 { unmasked.append(name) }
                continue
            }
            replacements.append(Array("[keychainctl:\(name)]".utf8))
            value.withUnsafeBytes { bytes in
                for form in Self.forms(of: bytes) where form.count >= Self.minimumBytes { add(form, replacement: replacements.count - 1) }
            }
        }
        arena.withUnsafeBytes { all in
            for index in forms.indices {
                let first = all[forms[index].offset]
                byFirstByte[Int(first)].append(index)
            }
        }
        for index in byFirstByte.indices { byFirstByte[index].sort { forms[$0].length > forms[$1].length } }
    }

    /// Whether there is anything to mask.
    package var isEmpty: Bool { forms.isEmpty }

    private func add(_ form: [UInt8], replacement: Int) {
        let duplicate = arena.withUnsafeBytes { all in
            forms.contains { $0.length == form.count && all[$0.offset..<($0.offset + $0.length)].elementsEqual(form) }
        }
        guard !duplicate else { return }
        forms.append((arena.count, form.count, replacement))
        form.withUnsafeBytes { arena.append($0) }
        longest = max(longest, form.count)
    }

    /// Masks `chunk` and hands what is decided to `emit` (possibly nothing).
    package func process(_ chunk: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) -> Void) {
        pending.append(contentsOf: chunk)
        let lastNewline = pending.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        decide(upTo: max(lastNewline, pending.count - max(0, longest - 1)), emit: emit)
    }

    /// Masks and hands over everything held back (the stream ended, or went quiet).
    package func flush(emit: (UnsafeRawBufferPointer) -> Void) {
        decide(upTo: pending.count, emit: emit)
    }

    /// Whether output is being held back.
    package var holding: Bool { !pending.isEmpty }

    /// Decides every byte before `boundary`: a form may start there and run on past it within
    /// what is pending. Hands the decided output to `emit` and keeps the rest.
    private func decide(upTo boundary: Int, emit: (UnsafeRawBufferPointer) -> Void) {
        guard boundary > 0 else { return }
        var output: [UInt8] = []
        output.reserveCapacity(boundary + 64)
        var consumed = 0
        pending.withUnsafeBufferPointer { buffer in
            arena.withUnsafeBytes { all in
                var index = 0
                var copiedFrom = 0
                while index < boundary {
                    let candidates = byFirstByte[Int(buffer[index])]
                    var matched: (length: Int, replacement: Int)?
                    if !candidates.isEmpty {
                        for form in candidates {
                            let (offset, length, replacement) = forms[form]
                            guard index + length <= buffer.count else { continue }
                            guard let base = buffer.baseAddress, let formBase = all.baseAddress else { break }
                            if memcmp(base + index, formBase + offset, length) == 0 {
                                matched = (length, replacement)
                                break
                            }
                        }
                    }
                    if let matched {
                        output.append(contentsOf: buffer[copiedFrom..<index])
                        output.append(contentsOf: replacements[matched.replacement])
                        index += matched.length
                        copiedFrom = index
                    } else {
                        index += 1
                    }
                }
                output.append(contentsOf: buffer[copiedFrom..<index])
                consumed = index
            }
        }
        pending.removeFirst(consumed)
        output.withUnsafeBytes { if $0.count > 0 { emit($0) } }
    }

    /// The forms of a secret worth masking: itself and its lines, each without the whitespace
    /// around it (`echo token | keychainctl add` stores a newline that `$(…)` and most programs
    /// strip, and a match must not eat the command's own newline); then, of the value as stored and
    /// as trimmed, base64 and base64url at each of the three offsets, base64 wrapped at 64 and 76
    /// columns (PEM, `base64`), hex (both cases), URL- and JSON-escaped.
    static func forms(of value: UnsafeRawBufferPointer) -> [[UInt8]] {
        let bytes = Array(value)
        let trimmed = Array(bytes.trimmingASCIIWhitespace())
        var forms = trimmed.isEmpty ? [bytes] : [trimmed]
        let lines = bytes.split(omittingEmptySubsequences: true) { $0 == 0x0A || $0 == 0x0D }
        for line in lines {
            let line = Array(line.trimmingASCIIWhitespace())
            if !line.isEmpty, line != forms[0] { forms.append(line) }
        }
        for base in trimmed.isEmpty || trimmed == bytes ? [bytes] : [bytes, trimmed] {
            for offset in 0..<3 {
                forms.append(stableBase64(base, offset: offset, alphabet: standardAlphabet))
                forms.append(stableBase64(base, offset: offset, alphabet: urlAlphabet))
                for width in [64, 76] { forms += wrappedBase64Lines(base, offset: offset, width: width) }
            }
            let hexDigits = Array("0123456789abcdef".utf8)
            let lower = base.flatMap { [hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 15)]] }
            forms.append(lower)
            forms.append(lower.map { $0 >= 0x61 ? $0 - 0x20 : $0 })
            forms.append(urlEscaped(base))
            forms.append(jsonEscaped(base))
        }
        return forms
    }

    /// The lines of `bytes`' base64 wrapped at `width` columns when it starts `offset` bytes into
    /// the encoded stream (the stream's first line starting the wrapping), that consist only of
    /// the value's own characters, and the last line with its padding: what `base64 < FILE` prints
    /// when the secret ends the file.
    static func wrappedBase64Lines(_ bytes: [UInt8], offset: Int, width: Int) -> [[UInt8]] {
        let encoded = Array(Base64.encode([UInt8](repeating: 0, count: offset) + bytes).utf8)
        guard encoded.count > width else { return [] }
        let firstStable = (8 * offset + 5) / 6
        let endStable = (8 * (offset + bytes.count)) / 6
        var lines: [[UInt8]] = []
        var start = 0
        while start < encoded.count {
            let end = min(start + width, encoded.count)
            if start >= firstStable, end <= endStable || end == encoded.count {
                lines.append(Array(encoded[start..<end]))
            }
            start = end
        }
        return lines
    }

    private static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The base64 characters of `bytes` that do not depend on what surrounds it when it starts
    /// `offset` bytes into a three-byte group: character j covers bits 6j..<6j+6 of the stream,
    /// and is kept when all of them are the value's.
    static func stableBase64(_ bytes: [UInt8], offset: Int, alphabet: [UInt8]) -> [UInt8] {
        let stream = [UInt8](repeating: 0, count: offset) + bytes + [0, 0]
        let firstBit = 8 * offset
        let endBit = 8 * (offset + bytes.count)
        var out: [UInt8] = []
        var j = (firstBit + 5) / 6
        while 6 * j + 6 <= endBit {
            let bit = 6 * j
            let byte = bit / 8
            let shift = bit % 8
            let word = (UInt16(stream[byte]) << 8) | UInt16(stream[byte + 1])
            out.append(alphabet[Int((word >> (10 - UInt16(shift))) & 0x3F)])
            j += 1
        }
        return out
    }

    /// Percent-encoding of everything but RFC 3986's unreserved characters.
    static func urlEscaped(_ bytes: [UInt8]) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            let unreserved =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            if unreserved { out.append(byte) } else { out += [0x25, hex[Int(byte >> 4)], hex[Int(byte & 15)]] }
        }
        return out
    }

    /// The text of a JSON string holding `bytes` (quotes, backslashes and control characters escaped).
    static func jsonEscaped(_ bytes: [UInt8]) -> [UInt8] {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            switch byte {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0..<0x20: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: out.append(byte)
            }
        }
        return out
    }
}
