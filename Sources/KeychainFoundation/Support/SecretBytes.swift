import CSodium

/// Secret bytes (a key or an item's secret) kept in guarded memory that is zeroed when released.
///
/// A reference type on purpose: the bytes exist once, in `GuardedMemory`, and are never copied by
/// value. Nothing here prints or describes its contents.
package final class SecretBytes: @unchecked Sendable, CustomStringConvertible {
    private var block: GuardedMemory.Block
    private var base: UnsafeMutableRawPointer { block.base }
    /// Number of secret bytes held.
    package fileprivate(set) var count: Int

    /// Allocates `count` zeroed bytes.
    package init(count: Int) {
        self.count = count
        block = GuardedMemory.allocate(count)
    }

    /// Copies `bytes` in, in one move; the caller remains responsible for zeroing its own copy.
    package convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(count: bytes.count)
        if let source = bytes.baseAddress { base.copyMemory(from: source, byteCount: bytes.count) }
    }

    /// Copies `bytes` in; the caller remains responsible for zeroing its own copy.
    package convenience init<Bytes: Collection>(copying bytes: Bytes) where Bytes.Element == UInt8 {
        self.init(count: bytes.count)
        let target = base.assumingMemoryBound(to: UInt8.self)
        for (index, byte) in bytes.enumerated() { target[index] = byte }
    }

    /// `count` random bytes: the way keys are made.
    package static func random(count: Int) -> SecretBytes {
        let secret = SecretBytes(count: count)
        randombytes_buf(secret.base, count)
        return secret
    }

    deinit { GuardedMemory.release(block) }

    /// Overwrites the bytes with fresh random ones (a reused buffer becoming a new key).
    package func fillRandom() { randombytes_buf(base, count) }

    /// Appends bytes, growing the guarded buffer; the old buffer is zeroed as it is released.
    package func append(_ source: UnsafeRawBufferPointer) {
        guard source.count > 0 else { return }
        reserve(count + source.count)
        (base + count).copyMemory(from: source.baseAddress!, byteCount: source.count)
        count += source.count
    }

    /// Appends `text`'s UTF-8 bytes: the labels and separators written around secret ones.
    package func append(text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// How many bytes can be appended before the guarded buffer has to grow.
    package var spareCapacity: Int { block.capacity - count }

    /// Appends up to `maximum` bytes that `fill` writes straight into guarded memory (a `read(2)`),
    /// so that no ordinary buffer ever holds them. Returns what `fill` returned.
    package func appendFilling(maximum: Int, _ fill: (UnsafeMutableRawPointer, Int) -> Int) -> Int {
        reserve(count + maximum)
        let got = fill(base + count, maximum)
        if got > 0 { count += got }
        return got
    }

    private func reserve(_ needed: Int) {
        guard needed > block.capacity else { return }
        let grown = GuardedMemory.allocate(max(block.capacity * 2, needed))
        grown.base.copyMemory(from: block.base, byteCount: count)
        GuardedMemory.release(block)
        block = grown
    }

    /// Drops one trailing `\n` (and a `\r` before it), as `--strip-newline` asks.
    package func stripTrailingNewline() {
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        guard count > 0, bytes[count - 1] == 0x0A else { return }
        count -= 1
        bytes[count] = 0
        if count > 0, bytes[count - 1] == 0x0D {
            count -= 1
            bytes[count] = 0
        }
    }

    /// Keeps the first `length` bytes and zeroes the rest.
    package func truncate(to length: Int) {
        guard length < count else { return }
        (base + length).initializeMemory(as: UInt8.self, repeating: 0, count: count - length)
        count = max(0, length)
    }

    /// Lends the bytes for the duration of `body`; they must not escape it.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Lends the bytes for writing for the duration of `body`; they must not escape it.
    package func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeMutableRawBufferPointer(start: base, count: count))
    }

    /// The bytes as standard base64 (with padding), in guarded memory: the way a key file is
    /// written and a returned secret is printed, without an ordinary string ever holding them.
    package func base64() -> SecretBytes {
        let variant = sodium_base64_VARIANT_ORIGINAL
        let length = sodium_base64_encoded_len(count, variant)  // includes the NUL
        let encoded = SecretBytes(count: length)
        encoded.withUnsafeMutableBytes { out in
            withUnsafeBytes { input in
                _ = sodium_bin2base64(
                    out.baseAddress!.assumingMemoryBound(to: CChar.self), length,
                    input.baseAddress?.assumingMemoryBound(to: UInt8.self), count, variant)
            }
        }
        encoded.count = length - 1
        return encoded
    }

    /// Decodes standard base64 held in guarded memory into guarded memory; `nil` if it is not
    /// base64. Whitespace inside is ignored; with `strict` (a key file, a key variable) only
    /// whitespace around it is, and every other byte must be of the alphabet, `=` only at the end:
    /// a NUL or a stray character is a damaged key, never silently skipped.
    package func base64Decoded(strict: Bool = false) -> SecretBytes? {
        var range = 0..<count
        if strict {
            let valid = withUnsafeBytes { bytes -> Bool in
                let trimmed = bytes.trimmingASCIIWhitespace()
                guard !trimmed.isEmpty else { return false }
                range = trimmed.startIndex..<trimmed.endIndex
                var padding = false
                for byte in trimmed {
                    let alphabet =
                        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                        || byte == 0x2B || byte == 0x2F
                    if byte == 0x3D {
                        padding = true
                    } else if !alphabet || padding {
                        return false
                    }
                }
                return true
            }
            guard valid else { return nil }
        }
        let decoded = SecretBytes(count: count)
        var length = 0
        let status = decoded.withUnsafeMutableBytes { out in
            withUnsafeBytes { input in
                sodium_base642bin(
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self), max(count, 1),
                    input.baseAddress.map { $0.assumingMemoryBound(to: CChar.self) + range.lowerBound }, range.count,
                    strict ? nil : " \t\r\n", &length, nil, sodium_base64_VARIANT_ORIGINAL)
            }
        }
        guard status == 0 else { return nil }
        decoded.count = length
        return decoded
    }

    /// Constant-time comparison.
    package func equals(_ other: SecretBytes) -> Bool {
        count == other.count && sodium_memcmp(base, other.base, count) == 0
    }

    /// Whether the bytes before the first `terminator` (all of them when there is none) are
    /// `other`'s, compared in constant time for a given length.
    package func equals(_ other: SecretBytes, before terminator: UInt8) -> Bool {
        let length = withUnsafeBytes { bytes in bytes.firstIndex(of: terminator) ?? bytes.count }
        return length == other.count && sodium_memcmp(base, other.base, length) == 0
    }

    /// Never the contents.
    package var description: String { "SecretBytes(\(count) bytes)" }
}
