import Foundation
import KeychainTestSupport
import Testing

@testable import KeychainCore

/// The streaming masker: every form, across any chunking, and plain output untouched.
@Suite struct SecretMaskerTests {
    func masked(_ secrets: [(String, String)], _ output: [UInt8], chunk: Int) -> [UInt8] {
        SecretMasker(secrets.map { ($0.0, SecretBytes(copying: Array($0.1.utf8))) }).masked(output, chunk: chunk)
    }

    @Test func masksAcrossEveryChunkSize() {
        let text = Array("start SECRET-value middle U0VDUkVULXZhbHVl end SECRET-value\nSECRET-".utf8)
        for chunk in [1, 2, 3, 5, 7, 64, 4096] {
            let out = String(decoding: masked([("T", "SECRET-value")], text, chunk: chunk), as: UTF8.self)
            #expect(out == "start [keychainctl:T] middle [keychainctl:T] end [keychainctl:T]\nSECRET-", "chunk \(chunk): \(out)")
        }
    }

    @Test func stableBase64MatchesEveryOffset() {
        let secret = Array("SECRET-value".utf8)
        for prefix in ["", "a", "ab", "abc"] {
            let encoded = Array(Data(Array(prefix.utf8) + secret + Array("!".utf8)).base64EncodedString().utf8)
            let forms = (0..<3).map {
                SecretMasker.stableBase64(
                    secret, offset: $0, alphabet: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8))
            }
            #expect(forms.contains { form in encoded.indices.contains { encoded[$0...].starts(with: form) } }, "prefix '\(prefix)'")
        }
    }

    @Test func shortSecretsAreNotMaskedAndNamed() {
        let masker = SecretMasker([
            ("PIN", SecretBytes(copying: Array("123".utf8))), ("OK", SecretBytes(copying: Array("long enough".utf8))),
        ])
        #expect(masker.unmasked == ["PIN"])
        let out = String(decoding: masked([("PIN", "123")], Array("123 123".utf8), chunk: 3), as: UTF8.self)
        #expect(out == "123 123")
    }

    @Test func binaryOutputPassesUnchanged() {
        var random = SeededRandom()
        let bytes = (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        #expect(masked([("T", "SECRET-value")], bytes, chunk: 4096) == bytes, "\(random)")
    }

    /// A secret stored with a newline is masked without it, and the command's own newline stays.
    @Test func aTrailingNewlineIsNotPartOfTheMatch() {
        let out = masked([("T", "ghp_token-123\n")], Array("a ghp_token-123\nb ghp_token-123;\n".utf8), chunk: 3)
        #expect(String(decoding: out, as: UTF8.self) == "a [keychainctl:T]\nb [keychainctl:T];\n")
    }

    /// Base64 wrapped at 64 or 76 columns, from the start of the stream and after one or two other
    /// bytes, leaves no line of the secret's own characters in clear.
    @Test func wrappedBase64IsMaskedLineByLine() {
        let secret = Array(String(repeating: "private-key-material/", count: 9).utf8)
        for prefix in [[], [0x41], [0x41, 0x42]] as [[UInt8]] {
            for width in [64, 76] {
                let encoded = Array(Data(prefix + secret).base64EncodedString().utf8)
                var wrapped: [UInt8] = []
                for start in stride(from: 0, to: encoded.count, by: width) {
                    wrapped += encoded[start..<min(start + width, encoded.count)] + [0x0A]
                }
                let out = masked([("K", String(decoding: secret, as: UTF8.self))], wrapped, chunk: 17)
                let lines = out.split(separator: 0x0A)
                // Every line but the first (which holds the prefix's bits) is masked whole.
                for line in lines.dropFirst(prefix.isEmpty ? 0 : 1) {
                    #expect(String(decoding: line, as: UTF8.self) == "[keychainctl:K]", "prefix \(prefix.count), width \(width)")
                }
            }
        }
    }
}
