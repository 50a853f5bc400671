import KeychainPlatform

extension KernelKeyring {
    /// Adds (or replaces) the key `description` with the bytes of `payload` (see `add(_:payload:…)`).
    package static func add(_ description: String, payload: SecretBytes, ring: Ring, timeout: UInt32, shareUID: Bool) throws(Failure)
        -> Int32
    {
        let result = payload.withUnsafeBytes { bytes in
            Result { () throws(Failure) in try add(description, payload: bytes, ring: ring, timeout: timeout, shareUID: shareUID) }
        }
        return try result.get()
    }

    /// The payload of key `serial` when it is exactly `length` bytes, read into guarded memory.
    package static func read(_ serial: Int32, length: Int) -> SecretBytes? {
        let payload = SecretBytes(count: length)
        let got = payload.withUnsafeMutableBytes { read(serial, into: $0) }
        return got == length ? payload : nil
    }
}
