/// How an attribute's value is typed, parsed, compared and rendered.
package enum ValueKind: UInt8, Sendable {
    /// UTF-8 text (`acct`, `svce`, `labl`, …).
    case string = 1
    /// Raw bytes (`gena`, `alis`, …); matches a string with the same bytes.
    case data = 2
    /// A signed integer (`port`, `scrp`, …).
    case number = 3
    /// A boolean stored as a number (`sync`, `invi`, `nega`, …).
    case bool = 4
    /// A point in time, milliseconds since 1970 UTC (`cdat`, `mdat`).
    case date = 5
    /// A four-character code (`crtr`, `type`, `ptcl`, `atyp`), rendered as a string.
    case fourCharCode = 6
}
