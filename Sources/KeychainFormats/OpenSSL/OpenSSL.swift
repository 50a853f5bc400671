import CCrypto
import KeychainFoundation

/// The few things every use of OpenSSL's libcrypto shares: starting it without its configuration
/// file, its error text, and moving DER between Swift arrays and OpenSSL objects.
package enum OpenSSL {
    /// Starts libcrypto once. openssl.cnf (and OPENSSL_CONF, which could load a provider module
    /// into this process) is never read; the work it costs is skipped.
    package static func start() -> Bool {
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_ATEXIT), nil) == 1
    }

    /// OpenSSL's reason for the last failure, in words (never the input's bytes); the error queue
    /// is cleared.
    package static func lastError(otherwise: String = "it is malformed") -> String {
        let code = ERR_peek_error()  // the earliest: the specific cause, not "nested asn1 error"
        defer { ERR_clear_error() }
        guard code != 0, let reason = ERR_reason_error_string(code) else { return otherwise }
        return "OpenSSL says \"\(String(cString: reason))\""
    }

    /// Decodes one DER object of `bytes` with a `d2i_…` function; `nil` unless it decodes and
    /// fills `bytes` exactly (trailing bytes are refused).
    package static func decode(
        _ bytes: [UInt8], _ d2i: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?,
        free: (OpaquePointer) -> Void
    ) -> OpaquePointer? {
        bytes.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let object = d2i(&cursor, buffer.count) else { return nil }
            guard let end = cursor, end - base == buffer.count else {
                free(object)
                return nil
            }
            return object
        }
    }

    /// The bytes an `i2d_…`-shaped function writes (it is called twice: for the size, then the
    /// bytes); `nil` when it fails.
    package static func encode(_ i2d: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8]? {
        let size = i2d(nil)
        guard size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d(&cursor)
        }
        return written == size ? bytes : nil
    }

    /// What a function writing to a memory BIO wrote, as text; `nil` when it fails.
    package static func text(_ write: (OpaquePointer) -> Bool) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard write(bio) else { return nil }
        var start: UnsafeMutablePointer<CChar>?
        let count = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &start)
        guard count > 0, let start else { return nil }
        return start.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    /// An ASN1_STRING's (or BIT STRING's) bytes.
    package static func bytes(of string: UnsafePointer<ASN1_STRING>) -> [UInt8]? {
        guard let start = ASN1_STRING_get0_data(string) else { return nil }
        return Array(UnsafeBufferPointer(start: start, count: Int(ASN1_STRING_length(string))))
    }

    /// Overwrites a copy of secret bytes that an OpenSSL call needed as an array, with
    /// `OPENSSL_cleanse`, which the compiler cannot drop as a store nothing reads.
    package static func zero(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { cleanse($0) }
    }

    /// Overwrites `memory` (a key schedule, a buffer) the same way.
    package static func cleanse(_ memory: UnsafeMutableRawBufferPointer) {
        if let base = memory.baseAddress { OPENSSL_cleanse(base, memory.count) }
    }

    /// A parameter name (`group`, `pub`, `digest`, …) in static memory: a parameter builder keeps
    /// the pointer, so a Swift string's temporary copy would dangle.
    package static func parameterName(_ name: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    /// SHA-1 of `bytes` (Apple's public key hash and application label).
    package static func sha1(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        _ = EVP_Digest(bytes.baseAddress, bytes.count, &digest, &length, EVP_sha1(), nil)
        return digest
    }
}
