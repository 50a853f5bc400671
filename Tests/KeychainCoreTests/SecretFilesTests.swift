import Foundation
import KeychainFoundation
import Testing

@testable import KeychainCore

/// Reading a secret sizes the guarded buffer to the secret: a short one takes one small pooled slot
/// (two locked 64 KiB regions made a 12-byte add a sixth slower), a long one is read whole.
@Suite struct SecretFilesTests {
    @Test(arguments: [0, 12, 255, 256, 257, 100_000])
    func aSecretIsReadWholeIntoABufferItsOwnSize(_ size: Int) throws {
        let path = NSTemporaryDirectory() + "keychainctl-secret-" + UUID().uuidString
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try #require(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let secret = try SecretFiles.readFile(path, limit: 1 << 20)
        #expect(secret.count == size)
        #expect(secret.withUnsafeBytes { Array($0) } == bytes)
        #expect(secret.spareCapacity <= max(512, size), "\(size) bytes left \(secret.spareCapacity) spare")
        if size > 0 { #expect(throws: InputTooLarge.self) { _ = try SecretFiles.readFile(path, limit: size - 1) } }
    }
}
