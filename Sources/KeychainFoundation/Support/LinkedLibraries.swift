import CCrypto
import CSQLite
import CSodium
import CZip

/// The C libraries compiled into keychainctl, with the versions they report at run time (the
/// ones actually linked, which in a release binary are the static copies inside it).
package enum LinkedLibraries {
    /// Name and version, in `--version`'s order.
    package static var versions: [(name: String, version: String)] {
        [
            ("sqlite", String(cString: sqlite3_libversion())),
            ("libsodium", String(cString: sodium_version_string())),
            ("openssl", String(cString: OpenSSL_version(OPENSSL_VERSION_STRING))),
            ("zlib", String(cString: zlibVersion())),
        ]
    }
}
