import Foundation
import KeychainFoundation
import KeychainTestSupport
import Testing

/// The `Security` library's `errSec…` constants are the rows of the table `keychainctl error`
/// explains, name for name and number for number: one table, generated twice by the same script.
@Suite struct SecurityStatusTableTests {
    @Test func theLibrarysStatusesAreTheTablesRows() throws {
        let text = try String(contentsOfFile: PackagePaths.root + "/Sources/Security/SecBase+Statuses.swift", encoding: .utf8)
        let declaration = try NSRegularExpression(pattern: #"^public let (\w+): OSStatus = (-?\d+)$"#, options: .anchorsMatchLines)
        let declared = declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            (String(text[Range(match.range(at: 1), in: text)!]), Int32(text[Range(match.range(at: 2), in: text)!])!)
        }
        #expect(declared.count == AppleStatuses.rows.count)
        for (row, constant) in zip(AppleStatuses.rows, declared) {
            #expect(row.name == constant.0 && row.status == constant.1, "\(row.name) \(row.status) ≠ \(constant)")
        }
    }
}
