import Foundation
import Testing

@testable import KeychainCore

/// The dotenv reader (docs/CI.md): quoting, escapes, multi-line values, no
/// expansion, and errors that name the line but never the value.
@Suite struct DotEnvTests {
    func parse(_ text: String) throws -> DotEnv.Parsed { try Self.parse(Array(text.utf8)) }

    static func parse(_ bytes: [UInt8]) throws -> DotEnv.Parsed {
        try bytes.withUnsafeBytes { try DotEnv.parse($0, source: "test.env") }
    }

    func values(_ text: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for entry in try parse(text).entries { out[entry.name] = entry.value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
        return out
    }

    @Test func readsEveryForm() throws {
        let text =
            "\u{FEFF}# comment\r\n\r\nexport A=plain value   # trailing comment\r\nB='single $literal \\n'\nC=\"tab\\there\\nline \\\"q\\\" \\\\ \\$HOME\"\nD=\"real\nnewline\"\nE=\nF=a#not-comment\n  G = spaced\nH.I-J=x\n"
        let parsed = try values(text)
        #expect(parsed["A"] == "plain value")
        #expect(parsed["B"] == "single $literal \\n")
        #expect(parsed["C"] == "tab\there\nline \"q\" \\ $HOME")
        #expect(parsed["D"] == "real\nnewline")
        #expect(parsed["E"] == "")
        #expect(parsed["F"] == "a#not-comment")
        #expect(parsed["G"] == "spaced")
        #expect(parsed["H.I-J"] == "x")
        #expect(parsed.count == 8)
    }

    @Test func lineNumbersFollowMultiLineValues() throws {
        let parsed = try parse("A=\"one\ntwo\nthree\"\nB=1\n")
        #expect(parsed.entries.map(\.line) == [1, 4])
    }

    @Test func expansionIsNeverDoneButWarned() throws {
        let parsed = try parse("A=$HOME/x\nB='$HOME'\nC=\"$(id)\"\n")
        #expect(parsed.entries.map { $0.value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } } == ["$HOME/x", "$HOME", "$(id)"])
        #expect(parsed.warnings.count == 2)
        #expect(parsed.warnings.allSatisfy { !$0.contains("HOME/x") && !$0.contains("(id)") })
    }

    /// Errors name the file and line; the value (a secret) never appears.
    @Test(arguments: [
        ("A=1\nA=2\n", "lines 1 and 2"), ("A=\"SECRET-open\n", "line 1"), ("A='SECRET-open", "line 1"),
        ("1A=SECRET-x\n", "does not start with a variable name"), ("A=\"SECRET-x\" trailing\n", "after the closing quote"),
        // A bare token, and the second line of a key pasted unquoted: neither line is quoted back.
        ("NPM_TOKEN=ok\nghp_SECRETtoken1234567890\n", "line 2: expected NAME=value, and the line has no '='"),
        ("DEPLOY_KEY=-----BEGIN PRIVATE KEY-----\nMIIEvQSECRET/0ABC\n", "line 2: expected NAME=value, and the line does not start"),
        ("DEPLOY_KEY=-----BEGIN PRIVATE KEY-----\nMIIEvQSECRET/0ABC\n", "a value spanning lines must be quoted"),
        ("A=\u{FF}SECRET\n", "not UTF-8"),
    ])
    func malformedInputIsRefusedWithoutTheValue(text: String, message: String) throws {
        let bytes = text == "A=\u{FF}SECRET\n" ? [0x41, 0x3D, 0xFF] + Array("SECRET\n".utf8) : Array(text.utf8)
        do {
            _ = try Self.parse(bytes)
            Issue.record("\(text) was accepted")
        } catch let error as KeychainError {
            #expect(error.status == .param)
            #expect(error.hint.contains("test.env") && error.hint.contains(message), "\(error.hint)")
            #expect(!error.hint.contains("SECRET"), "\(error.hint)")
        } catch { Issue.record("unexpected \(error)") }
    }

    /// Hostile input: huge, deeply quoted, control characters, truncated at every byte: an
    /// answer (entries or errSecParam), never a crash or a hang.
    @Test(.timeLimit(.minutes(1))) func hostileInputEndsCleanly() throws {
        /// Entries, or errSecParam naming the file; anything else is recorded.
        func answers(_ bytes: [UInt8], _ what: String) {
            do { _ = try Self.parse(bytes) } catch let error as KeychainError {
                #expect(error.status == .param && error.hint.contains("test.env"), "\(what): \(error)")
            } catch { Issue.record("\(what): unexpected \(error)") }
        }
        let sample = Array("export A=\"x\\\"y\nz\" # c\nB='q'\nC=plain # d\n".utf8)
        for end in 0...sample.count {
            answers(Array(sample[..<end]), "truncated at \(end)")
        }
        #expect(try Self.parse(sample).entries.count == 3, "the whole sample parses")
        let huge = Array("A=\"".utf8) + [UInt8](repeating: UInt8(ascii: "\\"), count: 1 << 20) + Array("\"\n".utf8)
        answers(huge, "a megabyte of backslashes")
        let controls: [UInt8] = (0..<32).flatMap { (code: Int) -> [UInt8] in Array("K\(code)=".utf8) + [UInt8(code), 0x0A] }
        answers(controls, "control characters")
    }
}
