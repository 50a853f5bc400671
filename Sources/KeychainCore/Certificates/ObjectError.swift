/// Why a certificate, key or PKCS#12 file could not be read: words for the error's hint, never
/// the input's bytes. The caller names the file and chooses the status.
package struct ObjectError: Error, Sendable {
    package let reason: String
    package init(_ reason: String) { self.reason = reason }
}
