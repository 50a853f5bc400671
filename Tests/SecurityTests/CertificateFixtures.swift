import Foundation
import Security
import Testing

// What the certificate, key and identity suites share: the fixtures they read (made by
// Fixtures/Certificates/generate.sh) and a find as app code calls it.

let certificateFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures/Certificates")

/// A fixture's bytes.
func fixture(_ name: String) throws -> Data { try Data(contentsOf: certificateFolder.appendingPathComponent(name)) }

/// A PEM fixture's DER (the base64 between its armour lines).
func der(ofPEM name: String) throws -> Data {
    let lines = String(decoding: try fixture(name), as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("-----") }
    return try #require(Data(base64Encoded: lines.joined()))
}

/// `query` run through SecItemCopyMatching: its status and result.
func copyMatching(_ query: [String: Any]) -> (OSStatus, CFTypeRef?) {
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    return (status, result)
}
