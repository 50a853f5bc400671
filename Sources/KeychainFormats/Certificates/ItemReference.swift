import KeychainFoundation
import TextEscaping

/// What `--ref-file` gives an add, as `kSecValueRef` gives `SecItemAdd`: the certificates and keys
/// read from the files, each file named in any refusal.
package struct ItemReference: Sendable {
    package private(set) var certificates: [Certificate] = []
    package private(set) var keys: [KeyMaterial] = []

    /// Reads each file's objects: PEM blocks (certificates and keys, in any order) or one DER
    /// object (a certificate, else a key). A file holding neither is errSecParam naming it.
    package init(files: [(path: String, contents: SecretBytes)]) throws(KeychainError) {
        for file in files {
            do throws(ObjectError) {
                for block in try ObjectFile.blocks(of: file.contents) {
                    switch block.label {
                    case "CERTIFICATE", "X509 CERTIFICATE", "TRUSTED CERTIFICATE":
                        certificates.append(try Certificate(der: block.der.withUnsafeBytes { Array($0) }))
                    case nil:
                        // Unlabelled DER may be a private key: the copy tried as a certificate is zeroed.
                        var candidate = block.der.withUnsafeBytes { Array($0) }
                        defer { OpenSSL.zero(&candidate) }
                        if let certificate = try? Certificate(der: candidate) {
                            certificates.append(certificate)
                        } else {
                            do throws(ObjectError) {
                                keys.append(try KeyMaterial(der: block.der, label: nil))
                            } catch  where error.unrecognised {
                                throw ObjectError(
                                    "it is neither an X.509 certificate nor a key (PKCS#8, SEC1, PKCS#1 or SubjectPublicKeyInfo), in PEM or DER"
                                )
                            }
                        }
                    default:
                        keys.append(try KeyMaterial(der: block.der, label: block.label))
                    }
                }
            } catch {
                throw KeychainError(
                    .param, hint: "\(file.path.terminalSafe) is not a certificate or key keychainctl can read: \(error.reason).")
            }
        }
    }

    /// A reference holding exactly these objects (PKCS#12 import builds them).
    package init(certificates: [Certificate], keys: [KeyMaterial]) {
        self.certificates = certificates
        self.keys = keys
    }

    /// What the files hold, in words: "1 certificate and 2 keys".
    package var contents: String {
        func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
        return "\(count(certificates.count, "certificate")) and \(count(keys.count, "key"))"
    }
}
