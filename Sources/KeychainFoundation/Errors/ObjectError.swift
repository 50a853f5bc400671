/// Why a certificate, key or PKCS#12 file could not be read: words for the error's hint, never
/// the input's bytes. The caller names the file and chooses the status.
package struct ObjectError: Error, Sendable {
    package let reason: String
    /// The bytes are not the kind of object asked for at all (rather than one of that kind that
    /// is damaged or unsupported), so a reader may try another kind.
    package let unrecognised: Bool
    package init(_ reason: String, unrecognised: Bool = false) {
        self.reason = reason
        self.unrecognised = unrecognised
    }
}
