import CCrypto
import KeychainFoundation

/// The property list inside a signed provisioning profile (`.mobileprovision`,
/// `.provisionprofile`): a CMS SignedData (RFC 5652) whose encapsulated content is the plist.
///
/// Apple writes it in BER with indefinite lengths and a chunked OCTET STRING; OpenSSL's decoder
/// reads that (bounded nesting, every length checked) instead of keychainctl searching the bytes
/// for `<?xml`. The signature is not verified: keychainctl simulates what a device would do with
/// the profile, it does not decide whether Apple issued it.
package enum SignedProfile {
    /// Whether `bytes` start like a CMS ContentInfo (a SEQUENCE) rather than a property list.
    package static func looksSigned(_ bytes: [UInt8]) -> Bool { bytes.first == 0x30 }

    /// The encapsulated content; a ProfileError naming `path` and what is wrong otherwise.
    package static func content(of bytes: [UInt8], path: String) throws(ProfileError) -> ArraySlice<UInt8> {
        func refuse(_ reason: String) -> ProfileError {
            ProfileError("profile \(path) looks signed (CMS) but cannot be read: \(reason).")
        }
        guard OpenSSL.start() else { throw refuse("OpenSSL could not start") }
        ERR_clear_error()
        defer { ERR_clear_error() }
        let parsed: (info: OpaquePointer?, consumed: Int) = bytes.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            let info = d2i_CMS_ContentInfo(nil, &cursor, buffer.count)
            return (info, cursor.map { $0 - buffer.baseAddress! } ?? 0)
        }
        guard let info = parsed.info else { throw refuse(OpenSSL.lastError()) }
        defer { CMS_ContentInfo_free(info) }
        guard parsed.consumed == bytes.count else { throw refuse("\(bytes.count - parsed.consumed) bytes follow its end") }
        guard OBJ_obj2nid(CMS_get0_type(info)) == NID_pkcs7_signed else { throw refuse("it is not signed data") }
        guard OBJ_obj2nid(CMS_get0_eContentType(info)) == NID_pkcs7_data else {
            throw refuse("it encapsulates something other than data")
        }
        guard let slot = CMS_get0_content(info), let octets = slot.pointee, let start = ASN1_STRING_get0_data(octets) else {
            throw ProfileError("profile \(path) is signed (CMS) but carries no embedded property list.")
        }
        return Array(UnsafeBufferPointer(start: start, count: Int(ASN1_STRING_length(octets))))[...]
    }
}
