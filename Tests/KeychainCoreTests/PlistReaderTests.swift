import Foundation
import Testing

@testable import KeychainCore

/// keychainctl's own property-list readers against Foundation's writer and reader: every tree
/// Foundation writes, XML or binary, reads back as the same strings, booleans and containers.
@Suite struct PlistReaderTests {
    /// Foundation's tree as a `PlistValue` (dates become milliseconds since 1970; numbers and data
    /// become `.other`).
    static func expected(_ value: Any) -> PlistValue {
        switch value {
        case let string as String: return .string(string)
        case let flag as Bool where type(of: value) == Bool.self: return .bool(flag)
        case let array as [Any]: return .array(array.map(expected))
        case let dictionary as [String: Any]: return .dictionary(dictionary.mapValues(expected))
        case let date as Date: return .date(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        default: return .other
        }
    }

    static func read(_ data: Data) throws(PlistProblem) -> PlistValue { try PlistValue.read(Array(data)[...]) }

    /// A tree of every kind of value, strings that need escaping, UTF-16 strings, and containers
    /// large enough for extended counts and two-byte references.
    static var sample: [String: Any] {
        [
            "keychain-access-groups": ["TEAM.com.example.app", "TEAM.com.example.shared"],
            "escapes": "<&>\"' ]]> &amp; \t tab",
            "unicode": "caf\u{E9} \u{1F511} \u{4E2D}\u{6587}",
            "empty": "",
            "flags": [true, false],
            "numbers": [0, -1, 1 << 40, 3.25] as [Any],
            "date": Date(timeIntervalSince1970: 1_700_000_000),
            "data": Data([0, 1, 2, 255]),
            "nested": ["a": ["b": ["c": ["deep"]]]],
            "many": (0..<300).map { "group-\($0)" },
            "empty-array": [String](),
            "empty-dict": [String: String](),
        ]
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func foundationsOutputReadsBackTheSame(_ format: PropertyListSerialization.PropertyListFormat) throws {
        let data = try PropertyListSerialization.data(fromPropertyList: Self.sample, format: format, options: 0)
        #expect(try Self.read(data) == Self.expected(Self.sample))
    }

    /// Hand-written XML in the forms Foundation reads but does not write.
    @Test func xmlFormsFoundationReads() throws {
        let cases: [(String, PlistValue)] = [
            ("<plist version=\"1.0\"><string>a</string></plist>", .string("a")),
            ("<string>bare</string>", .string("bare")),
            ("\u{FEFF}<plist><true/></plist>", .bool(true)),
            ("<plist><true></true></plist>", .bool(true)),
            ("<plist><false></false></plist>", .bool(false)),
            ("<plist><string><![CDATA[<x> & y]]>z</string></plist>", .string("<x> & yz")),
            ("<plist><string>&#65;&#x42;&#x1F511;&lt;</string></plist>", .string("AB\u{1F511}<")),
            ("<plist><string/></plist>", .string("")),
            ("<plist><dict><key/><string>k</string></dict></plist>", .dictionary(["": .string("k")])),
            (
                "<?xml version=\"1.0\"?><!-- c --><!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"x.dtd\">"
                    + "<plist version='1.0'><!-- a --><dict><!-- b --><key>k</key><!-- c --><array><?pi x?>"
                    + "<string>v</string></array></dict></plist><!-- after -->\n",
                .dictionary(["k": .array([.string("v")])])
            ),
            (
                "<plist><dict><key>n</key><integer>\(String(repeating: "9", count: 5000))</integer></dict></plist>",
                .dictionary(["n": .other])
            ),
        ]
        for (xml, value) in cases {
            #expect(try Self.read(Data(xml.utf8)) == value, "\(xml)")
            if xml.count < 1000 && !xml.hasPrefix("<string>") {  // Foundation refuses the overflowing integer
                let foundation = try PropertyListSerialization.propertyList(from: Data(xml.utf8), format: nil)
                #expect(Self.expected(foundation) == value, "Foundation disagrees on \(xml)")
            }
        }
    }

    /// Malformed XML is a syntax problem naming the line; nothing is guessed.
    @Test func malformedXMLIsRefusedWithTheLine() {
        let cases: [(String, String)] = [
            ("<plist><dict><key>a</key></dict></plist>", "has no value"),
            ("<plist><dict><string>a</string></dict></plist>", "does not start with <key>"),
            ("<plist><dict><key>a</key><string>1</string><key>a</key><string>2</string></dict></plist>", "appears twice"),
            ("<plist>\n<array>\nx</array></plist>", "line 3: an array holds text"),
            ("<plist><string>a</strin></plist>", "expected </string>"),
            ("<plist><string>a", "<string> is not closed"),
            ("<plist><string>&foo;</string></plist>", "&foo;"),
            ("<plist><string>&#0;</string></plist>", "not a valid character"),
            ("<plist><string>&#xD800;</string></plist>", "not a valid character"),
            ("<plist><string>a & b</string></plist>", "character reference"),
            ("<plist><foo/></plist>", "<foo> is not a property list element"),
            ("<plist><false> </false></plist>", "expected </false>"),
            ("<plist version='1>0'><true/></plist>", "holds no value"),
            ("<plist><true/><true/></plist>", "expected </plist>"),
            ("<plist><true/></plist>junk", "text after"),
            ("<plist><!-- open", "comment is not closed"),
            ("<!DOCTYPE plist [ <plist/>", "DOCTYPE is not closed"),
            ("<plist", "tag is not closed"),
            ("", "no property list element"),
        ]
        for (xml, problem) in cases {
            do {
                _ = try Self.read(Data(xml.utf8))
                Issue.record("accepted \(xml)")
            } catch {
                #expect(!error.hostile && error.text.contains(problem), "\(xml): \(error.text)")
            }
        }
    }

    /// Binary strings that are not valid text are refused, never replaced.
    @Test func invalidBinaryStringsAreRefused() throws {
        func plist(_ object: [UInt8]) -> Data {
            var bytes = Array("bplist00".utf8) + object
            bytes += [8] + [0, 0, 0, 0, 0, 0, 1, 1]
            for value in [UInt64(1), 0, UInt64(8 + object.count)] { bytes += withUnsafeBytes(of: value.bigEndian) { Array($0) } }
            return Data(bytes)
        }
        #expect(try Self.read(plist([0x52, 0x61, 0x62])) == .string("ab"))
        #expect(try Self.read(plist([0x61, 0x00, 0x41])) == .string("A"))
        for bad in [[0x52, 0x61, 0xFF], [0x61, 0xD8, 0x00], [0x72, 0xC3, 0x28]] as [[UInt8]] {
            #expect(throws: PlistProblem.self) { try Self.read(plist(bad)) }
        }
        // 0x7_ is no marker of bplist00 (CoreFoundation refuses it), even holding valid UTF-8.
        #expect(throws: PlistProblem.self) { try Self.read(plist([0x72, 0x61, 0x62])) }
    }
}
