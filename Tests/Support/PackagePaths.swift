import Foundation

/// Where the package is, for tests and fuzzers that read its fixtures and docs.
package enum PackagePaths {
    /// The package's folder (this file is `Tests/Support/PackagePaths.swift` in it).
    package static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// `Fixtures/` in the package.
    package static var fixtures: String { root + "/Fixtures" }
}
