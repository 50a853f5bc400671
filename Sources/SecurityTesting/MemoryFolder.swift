import Foundation
import Glibc
package import KeychainPlatform

/// A private folder (mode 0700) in memory: under /dev/shm (a tmpfs on Linux) when it is there to
/// write in, else the temporary folder; removed when the test moves on, and at exit.
enum MemoryFolder {
    static func make() throws -> String {
        let base = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : NSTemporaryDirectory()
        var template = Array((base + "/keychainctl-test-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw TestingError("cannot make a folder in \(base): \(SystemError.text(errno))")
        }
        let path = String(cString: made)
        Made.shared.add(path)
        return path
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
        Made.shared.remove(path)
    }

    /// The folders made and not yet removed, removed at exit.
    private final class Made: @unchecked Sendable {
        static let shared = Made()
        private let lock = NSLock()
        private var paths: Set<String> = []
        private var registered = false

        func add(_ path: String) {
            lock.withLock {
                paths.insert(path)
                if !registered {
                    registered = true
                    atexit { Made.shared.removeAll() }
                }
            }
        }

        func remove(_ path: String) { _ = lock.withLock { paths.remove(path) } }

        func removeAll() {
            for path in lock.withLock({ paths }) { try? FileManager.default.removeItem(atPath: path) }
        }
    }
}

/// The entitlements plist of an app with these access groups.
enum EntitlementsPlist {
    static func render(groups: [String], applicationIdentifier: String) -> String {
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(
                of: ">", with: "&gt;")
        }
        let strings = groups.map { "<string>\(escaped($0))</string>" }.joined()
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>\
            <key>application-identifier</key><string>\(escaped(applicationIdentifier))</string>\
            <key>keychain-access-groups</key><array>\(strings)</array>\
            </dict></plist>
            """
    }
}
