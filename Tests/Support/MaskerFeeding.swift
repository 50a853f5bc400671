import KeychainCore

extension SecretMasker {
    /// `output` masked as a stream delivered in pieces of `chunk` bytes, then flushed: what a
    /// command's output looks like through `exec`, for any way the pipe splits it.
    package func masked(_ output: [UInt8], chunk: Int) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < output.count {
            let end = min(output.count, index + max(1, chunk))
            Array(output[index..<end]).withUnsafeBytes { process($0) { out += $0 } }
            index = end
        }
        flush { out += $0 }
        return out
    }
}
