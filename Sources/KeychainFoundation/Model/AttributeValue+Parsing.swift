import TextEscaping

/// Parsing command-line text into a typed value for an attribute.
extension AttributeValue {
    /// Parses `text` as a value of `attribute`. A malformed value is errSecParam (-50), as SecItem
    /// answers a value of the wrong type, except for number attributes: Apple's `copyNumber`
    /// (`SecDbItem.c`) keeps a string that is not exactly an integer as the string, so text that is
    /// not a number (or a four-character code) is stored and matched as text.
    ///
    /// Two explicit forms say what kind of value the text is, for any attribute: `base64:…` is
    /// data (a string attribute such as `acct` holds data as Apple binds a CFData, and a query
    /// then finds only data, as Apple's does), and `text:…` is the text after it, taken
    /// literally (the escape for a value that itself begins with `base64:` or `text:`).
    package static func parse(_ text: String, for attribute: AttributeDescriptor) throws(KeychainError)
        -> AttributeValue
    {
        let invalid = KeychainError(
            .param, hint: "'\(text.terminalSafe)' is not a valid value for \(attribute.code) (\(attribute.name)).")
        if text.hasPrefix(Self.textPrefix) {
            let literal = String(text.dropFirst(Self.textPrefix.count))
            switch attribute.kind {
            case .data: return .data(Array(literal.utf8))
            case .string, .number, .fourCharCode: return .string(literal)
            case .bool, .date: throw invalid
            }
        }
        if text.hasPrefix(Self.base64Prefix), attribute.kind == .string || attribute.kind == .fourCharCode {
            guard let bytes = Base64.decode(String(text.dropFirst(Self.base64Prefix.count))) else { throw invalid }
            return .data(bytes)
        }
        switch attribute.kind {
        case .string:
            if attribute.code == Schema.protection {
                guard let accessibility = Accessibility(parsing: text) else { throw Accessibility.notAClass(text) }
                return .string(accessibility.rawValue)
            }
            return .string(text)
        case .data:
            if text.hasPrefix(Self.base64Prefix) {
                guard let bytes = Base64.decode(String(text.dropFirst(Self.base64Prefix.count))) else { throw invalid }
                return .data(bytes)
            }
            return .data(Array(text.utf8))
        case .number:
            return Int64(text).map(AttributeValue.number) ?? .string(text)
        case .bool:
            switch text.lowercased() {
            case "1", "yes", "true": return .bool(true)
            case "0", "no", "false": return .bool(false)
            default: throw invalid
            }
        case .date:
            guard let milliseconds = ISO8601.parse(text) else { throw invalid }
            return .date(milliseconds)
        case .fourCharCode:
            return FourCharCode.parse(text, for: attribute.code).map(AttributeValue.fourCharCode) ?? .string(text)
        }
    }
}

/// Four-character codes and the friendly names `security` accepts for protocols and auth types.
package enum FourCharCode {
    private static let protocols: [String: String] = [
        "https": "htps", "http": "http", "ftp": "ftp ", "ftps": "ftps", "ssh": "ssh ", "sftp": "sftp",
        "imap": "imap", "imaps": "imps", "smtp": "smtp", "pop3": "pop3", "pop3s": "pop3s",
        "ldap": "ldap", "ldaps": "ldps", "telnet": "teln", "smb": "smb ", "afp": "afp ", "irc": "irc ",
        "nntp": "nntp", "socks": "sox ", "rtsp": "rtsp", "svn": "svn ", "vnc": "vnc ",
    ]
    private static let authTypes: [String: String] = [
        "default": "dflt", "ntlm": "ntlm", "msn": "msna", "dpa": "dpaa", "rpa": "rpaa",
        "http-basic": "http", "http-digest": "httd", "html-form": "form",
    ]

    /// The friendly names `--protocol` (`ptcl`) or `--auth-type` (`atyp`) accept, sorted (for completion).
    package static func names(for code: String) -> [String] {
        (code == Schema.networkProtocol ? protocols : code == Schema.authenticationType ? authTypes : [:]).keys.sorted()
    }

    /// A code of one to four printable ASCII characters (padded with spaces to four, as `ftp `),
    /// or a friendly name for `ptcl` / `atyp` (the two codes named here only); `nil` otherwise.
    package static func parse(_ text: String, for code: String) -> String? {
        let names = code == Schema.networkProtocol ? protocols : code == Schema.authenticationType ? authTypes : [:]
        if let mapped = names[text.lowercased()] { return mapped }
        let bytes = Array(text.utf8)
        guard (1...4).contains(bytes.count), bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            return nil
        }
        return text + String(repeating: " ", count: 4 - bytes.count)
    }
}
