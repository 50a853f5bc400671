import CCrypto
import KeychainFoundation
import TextEscaping

/// The objects in a certificate or key file: each PEM block (certificate, key) with its label,
/// or the whole file as one DER object. Read by OpenSSL's PEM reader; the bytes stay in guarded
/// memory, since a key file holds a private key.
package enum ObjectFile {
    /// One object: its PEM label (`nil` for a DER file) and DER bytes.
    package struct Block: Sendable {
        package let label: String?
        package let der: SecretBytes
    }

    /// The blocks of `contents`: PEM when it holds a PEM armour line, else one DER block. A PEM
    /// block that is encrypted the traditional way (Proc-Type headers) is refused; blocks of
    /// parameters (`EC PARAMETERS`) are skipped.
    package static func blocks(of contents: SecretBytes) throws(ObjectError) -> [Block] {
        let armoured = contents.withUnsafeBytes { buffer in
            let marker = Array("-----BEGIN ".utf8)
            guard buffer.count >= marker.count else { return false }
            return (0...(buffer.count - marker.count)).contains { offset in
                marker.indices.allSatisfy { buffer[offset + $0] == marker[$0] }
            }
        }
        guard armoured else { return [Block(label: nil, der: contents)] }
        guard OpenSSL.start() else { throw ObjectError("OpenSSL could not start") }
        ERR_clear_error()
        return try contents.withUnsafeBytes { buffer in Result { () throws(ObjectError) in try pemBlocks(buffer) } }.get()
    }

    /// The PEM blocks of `buffer`.
    private static func pemBlocks(_ buffer: UnsafeRawBufferPointer) throws(ObjectError) -> [Block] {
        guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { throw ObjectError("out of memory") }
        defer { BIO_free(bio) }
        var blocks: [Block] = []
        while true {
            var name: UnsafeMutablePointer<CChar>?
            var header: UnsafeMutablePointer<CChar>?
            var data: UnsafeMutablePointer<UInt8>?
            var length = 0
            // PEM_read_bio_ex with a secure-heap flag: the decoded bytes are cleared when freed.
            guard PEM_read_bio_ex(bio, &name, &header, &data, &length, UInt32(PEM_FLAG_SECURE | PEM_FLAG_EAY_COMPATIBLE)) == 1
            else { break }
            defer {
                CRYPTO_free(name, #fileID, #line)
                CRYPTO_free(header, #fileID, #line)
                CRYPTO_secure_clear_free(data, length, #fileID, #line)
            }
            let label = name.map { String(cString: $0) } ?? ""
            if let header, header.pointee != 0 {
                throw ObjectError("its '\(label.terminalSafe)' block is encrypted; decrypt it first (openssl pkey -in FILE -out PLAIN)")
            }
            if label.hasSuffix("PARAMETERS") { continue }
            blocks.append(Block(label: label, der: SecretBytes(copying: UnsafeRawBufferPointer(start: data, count: length))))
        }
        // The end of the input is the one failure that is not one.
        let last = ERR_peek_last_error()
        ERR_clear_error()
        if last != 0, ERR_GET_REASON(last) != PEM_R_NO_START_LINE {
            throw ObjectError("a PEM block is malformed")
        }
        guard !blocks.isEmpty else { throw ObjectError("it holds no PEM block") }
        return blocks
    }
}
