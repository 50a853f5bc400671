import KeychainCore
import KeychainPlatform
import TextEscaping

/// One credential as git's helper protocol describes it (`git help credential`): `key=value`
/// lines up to a blank line or the end of input. The password and the OAuth refresh token stay in
/// guarded memory; the other attributes are text. Attributes the helper does not keep
/// (`wwwauth[]`, `authtype`, …) are read and left alone, as the protocol asks of a helper.
struct GitCredential {
    var protocolName: String?
    var host: String?
    var path: String?
    var username: String?
    var password: SecretBytes?
    /// When the password stops working, in seconds since 1970 (git 2.41's `password_expiry_utc`).
    var passwordExpiry: String?
    /// The token that renews an OAuth password (`oauth_refresh_token`).
    var oauthRefreshToken: SecretBytes?
    /// What git says it understands (`capability[]`), and the state a helper gave it (`state[]`).
    var capabilities: Set<String> = []
    var states: [String] = []

    /// The keys whose values the helper reads as text.
    private static let textKeys: Set<String> = [
        "protocol", "host", "path", "username", "url", "password_expiry_utc", "capability[]", "state[]",
    ]

    /// Whether `digits` is a time as git writes one: decimal digits, at least one.
    static func isTimestamp<Bytes: Collection<UInt8>>(_ digits: Bytes) -> Bool {
        !digits.isEmpty && digits.allSatisfy { (0x30...0x39).contains($0) }
    }

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads `input` (standard input, whole): each line `key=value`; a `url` is split into its
    /// parts, which the other keys, coming later, override.
    init(reading input: SecretBytes) throws {
        try input.withUnsafeBytes { bytes in
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
                var line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                start = end + 1
                if line.last == 0x0D { line = UnsafeRawBufferPointer(rebasing: line.dropLast()) }
                if line.isEmpty { break }
                guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else {
                    throw Malformed(description: "a line without '=' (not shown)")
                }
                let key = String(decoding: line[..<equals], as: UTF8.self)
                let value = UnsafeRawBufferPointer(rebasing: line[(equals + 1)...])
                if key == "password" || key == "oauth_refresh_token" {
                    let secret = SecretBytes(count: 0)
                    secret.append(value)
                    if key == "password" { password = secret } else { oauthRefreshToken = secret }
                    continue
                }
                // A key the helper does not use is left alone whatever its value holds.
                guard Self.textKeys.contains(key) else { continue }
                guard let text = String(exactly: value) else { throw Malformed(description: "a \(key) that is not UTF-8") }
                switch key {
                case "protocol": protocolName = text
                case "host": host = text
                case "path": path = text
                case "username": username = text
                case "url": take(url: text)
                // Only what git itself writes: digits, so nothing else is ever stored or handed back.
                case "password_expiry_utc": passwordExpiry = GitCredential.isTimestamp(text.utf8) ? text : nil
                case "capability[]": capabilities.insert(text)
                case "state[]": states.append(text)
                default: continue
                }
            }
        }
    }

    /// The parts of a registry's address as Docker names it: a URL, or a host with no scheme
    /// (`registry.example.com:5000`), which is an HTTPS one.
    init(url: String) {
        take(url: url.utf8.firstRange(ofBytes: "://".utf8) == nil ? "https://" + url : url)
    }

    /// `protocol://[user@]host[:port]/path`, as git gives a whole URL.
    private mutating func take(url: String) {
        guard let scheme = url.utf8.firstRange(ofBytes: "://".utf8) else { return }
        protocolName = String(url[..<scheme.lowerBound])
        var rest = url[scheme.upperBound...]
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<slash]
        rest = rest[slash...]
        if let at = authority.lastIndex(of: "@") {
            let user = authority[..<at]
            let name = user.prefix { $0 != ":" }
            username = name.removingPercentEncoding ?? String(name)
            authority = authority[authority.index(after: at)...]
        }
        host = String(authority)
        if rest.count > 1 { path = String(rest.dropFirst()) }
    }

    /// The host without its port, and the port (`example.com:8443`).
    var server: (name: String, port: String?)? {
        guard let host, !host.isEmpty else { return nil }
        // An IPv6 literal keeps its colons: a port follows the closing bracket.
        if host.hasPrefix("["), let close = host.lastIndex(of: "]") {
            let after = host[host.index(after: close)...]
            let port = after.hasPrefix(":") ? String(after.dropFirst()) : nil
            return (String(host[...close]), port)
        }
        guard let colon = host.lastIndex(of: ":") else { return (host, nil) }
        return (String(host[..<colon]), String(host[host.index(after: colon)...]))
    }
}

extension Substring {
    /// The text with `%XX` escapes decoded; `nil` when one is malformed or decodes to bad UTF-8.
    fileprivate var removingPercentEncoding: String? {
        var bytes: [UInt8] = []
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let digits = utf8[utf8.index(after: index)...].prefix(2)
                guard digits.count == 2, let value = UInt8(String(decoding: digits, as: UTF8.self), radix: 16) else { return nil }
                bytes.append(value)
                index = utf8.index(index, offsetBy: 3)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return bytes.withUnsafeBytes { String(exactly: $0) }
    }
}
