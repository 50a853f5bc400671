import CommandLineKit
import KeychainCore

/// `CODE=PATH` assignments naming an item's data fields (an internet password's `binn`, `bini`,
/// `bin0`–`bin3`) by the file that holds each one's bytes: the bytes never pass through argv.
enum DataFieldFiles {
    /// Each assignment read as a `code=base64:…` attribute pair, which the keychain seals with the
    /// data. A file over the secret limit, or one that does not open, is an error naming it.
    static func read(_ assignments: [Assignment], option: String) throws -> [(code: String, value: String)] {
        try assignments.map { pair in
            guard Schema.attribute(pair.code)?.isDataField == true else {
                throw UsageError("\(option) names a data field (binn, bini, bin0, bin1, bin2 or bin3), not '\(pair.code)'.")
            }
            let bytes = try SecretFiles.readFile(pair.value, limit: InputLimits.secretBytes)
            return (pair.code, "base64:" + bytes.withUnsafeBytes { Base64.encode(Array($0)) })
        }
    }
}
