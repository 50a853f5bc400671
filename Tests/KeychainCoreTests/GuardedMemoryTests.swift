import Testing

@testable import KeychainCore

/// `SecretBytes` and the guarded slabs under it: sizes on both sides of every size class, no two
/// live secrets sharing a byte, zeroed memory on reuse, and more live secrets than a process has
/// mappings for when each had its own guarded region.
@Suite struct GuardedMemoryTests {
    static func bytes(_ secret: SecretBytes) -> [UInt8] { secret.withUnsafeBytes { Array($0) } }

    @Test func everySizeIsZeroedAndHoldsWhatIsWritten() {
        let sizes = [0, 1, 15, 16, 17, 31, 32, 33, 255, 256, 257, 2047, 2048, 2049, 4096, 100_000]
        for size in sizes {
            let secret = SecretBytes(count: size)
            #expect(secret.count == size)
            #expect(Self.bytes(secret).allSatisfy { $0 == 0 }, "fresh \(size)-byte secret not zeroed")
            secret.withUnsafeMutableBytes { buffer in
                for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: index &* 7 &+ size) }
            }
            #expect(Self.bytes(secret) == (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ size) })
        }
    }

    @Test func liveSecretsNeverOverlapAndReleasedSlotsComeBackZeroed() {
        // 20,000 live secrets: one guarded mapping each would pass the kernel's map count limit.
        var live: [SecretBytes] = []
        for index in 0..<20_000 {
            let secret = SecretBytes(count: 12 + index % 40)
            _ = secret.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: UInt8(truncatingIfNeeded: index | 1)) }
            live.append(secret)
        }
        for (index, secret) in live.enumerated() {
            #expect(Self.bytes(secret) == Array(repeating: UInt8(truncatingIfNeeded: index | 1), count: 12 + index % 40))
        }
        live.removeAll()
        for _ in 0..<1000 {
            #expect(Self.bytes(SecretBytes(count: 40)).allSatisfy { $0 == 0 })
        }
    }

    @Test func growingKeepsTheBytesAcrossSizeClassesAndIntoItsOwnRegion() {
        let secret = SecretBytes(count: 0)
        var expected: [UInt8] = []
        for round in 0..<300 {
            let chunk = (0..<(round % 23 + 1)).map { UInt8(truncatingIfNeeded: $0 + round) }
            chunk.withUnsafeBytes { secret.append($0) }
            expected += chunk
        }
        #expect(expected.count > GuardedMemory.largestPooled)
        #expect(Self.bytes(secret) == expected)
    }

    @Test func sizeClassesAreTheSmallestThatFit() {
        for (count, capacity) in [(0, 16), (1, 16), (16, 16), (17, 32), (1000, 1024), (2048, 2048), (2049, 2049)] {
            let block = GuardedMemory.allocate(count)
            #expect(block.capacity == capacity, "\(count) bytes got \(block.capacity)")
            #expect(Int(bitPattern: block.base) % min(capacity, 64) == 0 || capacity > GuardedMemory.largestPooled)
            GuardedMemory.release(block)
        }
    }
}
