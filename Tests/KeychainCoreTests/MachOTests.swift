import Foundation
import Testing

@testable import KeychainCore

/// `MachOEntitlements`: a signed executable's entitlements, and every way a hostile file could lie.
@Suite struct MachOTests {
    static let entitlements = Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>keychain-access-groups</key><array><string>SKMME9E2Y8.com.example.shared</string></array></dict></plist>
        """.utf8)

    static func be32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
    static func le32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
    static func le64(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

    /// A code signature super blob holding `content` in the entitlements slot.
    static func superBlob(_ content: [UInt8], count: UInt32 = 1, slot: UInt32 = 5, blobMagic: UInt32 = 0xFADE_7171) -> [UInt8] {
        let blob = be32(blobMagic) + be32(UInt32(8 + content.count)) + content
        return be32(0xFADE_0CC0) + be32(UInt32(20 + blob.count)) + be32(count) + be32(slot) + be32(20) + blob
    }

    /// A thin 64-bit Mach-O whose LC_CODE_SIGNATURE points at `signature` (placed after the commands).
    static func thin(signature: [UInt8], cpu: UInt32 = 0x0100_000C, commandCount: UInt32 = 1, commandSize: UInt32 = 16) -> [UInt8] {
        let offset = UInt32(32 + 16)
        let command = le32(0x1D) + le32(commandSize) + le32(offset) + le32(UInt32(signature.count))
        return le32(0xFEED_FACF) + le32(cpu) + le32(0) + le32(2) + le32(commandCount) + le32(16) + le32(0) + le32(0) + command + signature
    }

    /// A universal file of `slices`, each at a 16-byte boundary.
    static func fat(_ slices: [(cpu: UInt32, body: [UInt8])]) -> [UInt8] {
        var offset = 8 + 20 * slices.count
        offset += (16 - offset % 16) % 16
        var table: [UInt8] = []
        var data: [UInt8] = []
        for slice in slices {
            table += be32(slice.cpu) + be32(0) + be32(UInt32(offset + data.count)) + be32(UInt32(slice.body.count)) + be32(4)
            data += slice.body + [UInt8](repeating: 0, count: (16 - slice.body.count % 16) % 16)
        }
        var head = be32(0xCAFE_BABE) + be32(UInt32(slices.count)) + table
        head += [UInt8](repeating: 0, count: offset - head.count)
        return head + data
    }

    static func read(_ bytes: [UInt8]) throws(ProfileError) -> [UInt8] { try MachOEntitlements.read(.bytes(bytes), path: "test") }

    @Test func signedThinAndUniversalFilesGiveTheirEntitlements() throws {
        let thin = Self.thin(signature: Self.superBlob(Self.entitlements))
        #expect(try Self.read(thin) == Self.entitlements)
        #expect(
            try Self.read(
                Self.fat([(0x0100_000C, thin), (0x0100_0007, Self.thin(signature: Self.superBlob(Self.entitlements), cpu: 0x0100_0007))]))
                == Self.entitlements)
        // Through the profile reader: the same groups as the plist itself.
        let document = try ProfileDocument.decode(thin, path: "test")
        #expect(document.entitlements["keychain-access-groups"]?.stringArray == ["SKMME9E2Y8.com.example.shared"])
    }

    @Test func slicesThatDisagreeAreAnErrorNamingThem() {
        let other = Array(Self.entitlements.map { $0 == UInt8(ascii: "s") ? UInt8(ascii: "S") : $0 })
        let file = Self.fat([
            (0x0100_000C, Self.thin(signature: Self.superBlob(Self.entitlements))),
            (0x0100_0007, Self.thin(signature: Self.superBlob(other), cpu: 0x0100_0007)),
        ])
        #expect {
            try Self.read(file)
        } throws: { error in
            (error as? ProfileError)?.message.contains("arm64 and x86_64") == true
        }
    }

    /// Every lie a header can tell ends in a ProfileError naming the file: never a crash, a hang,
    /// a huge allocation or a read outside the bytes.
    @Test func hostileFilesAreRefused() {
        let good = Self.thin(signature: Self.superBlob(Self.entitlements))
        var cases: [(String, [UInt8])] = []
        for length in [0, 3, 4, 20, 31, 40, 47, 60, good.count - 1] { cases.append(("truncated to \(length)", Array(good.prefix(length)))) }
        cases.append(("2^32-1 load commands", Self.thin(signature: Self.superBlob(Self.entitlements), commandCount: 0xFFFF_FFFF)))
        var huge = Self.thin(signature: Self.superBlob(Self.entitlements))
        huge.replaceSubrange(20..<24, with: Self.le32(64 << 20))  // sizeofcmds: 64 MiB of load commands
        huge += [UInt8](repeating: 0, count: 64 << 20)
        cases.append(("64 MiB of load commands", huge))
        cases.append(("a load command of size 0", Self.thin(signature: Self.superBlob(Self.entitlements), commandSize: 0)))
        cases.append(
            ("a load command larger than the commands", Self.thin(signature: Self.superBlob(Self.entitlements), commandSize: 4096)))
        cases.append(("two load commands in the space of one", Self.thin(signature: Self.superBlob(Self.entitlements), commandCount: 2)))
        cases.append(("a super blob claiming 2^32-1 blobs", Self.thin(signature: Self.superBlob(Self.entitlements, count: 0xFFFF_FFFF))))
        cases.append(
            ("a super blob of the wrong magic", Self.thin(signature: [0xDE, 0xAD] + Self.superBlob(Self.entitlements).dropFirst(2))))
        cases.append(
            ("an entitlements blob of the wrong magic", Self.thin(signature: Self.superBlob(Self.entitlements, blobMagic: 0xFADE_7172))))
        cases.append(("no entitlements slot", Self.thin(signature: Self.superBlob(Self.entitlements, slot: 0))))
        var lying = Self.superBlob(Self.entitlements)
        lying.replaceSubrange(24..<28, with: Self.be32(0xFFFF_FF00))  // the entitlements blob's length
        cases.append(("a blob longer than its super blob", Self.thin(signature: lying)))
        var pointing = Self.superBlob(Self.entitlements)
        pointing.replaceSubrange(16..<20, with: Self.be32(4))  // the blob's offset, inside the header
        cases.append(("a blob overlapping the super blob's header", Self.thin(signature: pointing)))
        var outside = good
        outside.replaceSubrange(40..<44, with: Self.le32(0xFFFF_FFF0))  // LC_CODE_SIGNATURE's offset
        cases.append(("a signature outside the file", outside))
        cases.append(("a universal file of 2^32-1 slices", Self.be32(0xCAFE_BABE) + Self.be32(0xFFFF_FFFF) + good))
        cases.append(("a universal file of no slice", Self.be32(0xCAFE_BABE) + Self.be32(0)))
        var slice = Self.fat([(0x0100_000C, good)])
        slice.replaceSubrange(16..<20, with: Self.be32(0x7FFF_FFFF))  // the slice's size
        cases.append(("a slice past the end", slice))
        cases.append(("a slice that is a universal file", Self.fat([(0x0100_000C, Self.fat([(0x0100_000C, good)]))])))
        cases.append(("entitlements that are a Mach-O", Self.thin(signature: Self.superBlob(good))))
        for (what, bytes) in cases {
            do {
                _ = try ProfileDocument.decode(bytes, path: "hostile")
                Issue.record("\(what) was accepted")
            } catch {
                #expect(error.message.contains("hostile"), "\(what): \(error.message)")
            }
        }
    }

    /// An unsigned executable (a build without the Keychain Sharing capability) says so.
    @Test func anUnsignedExecutableSaysWhy() {
        let unsigned =
            Self.le32(0xFEED_FACF) + Self.le32(0x0100_000C) + Self.le32(0) + Self.le32(2) + Self.le32(0) + Self.le32(0) + Self.le32(0)
            + Self.le32(0)
        #expect {
            try Self.read(unsigned)
        } throws: { error in
            (error as? ProfileError)?.message.contains("no entitlements") == true
        }
    }

    // MARK: DER entitlements

    /// One DER element with a definite length.
    static func der(_ tag: UInt8, _ body: [UInt8]) -> [UInt8] {
        if body.count < 0x80 { return [tag, UInt8(body.count)] + body }
        return [tag, 0x82, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    static func derString(_ text: String) -> [UInt8] { der(0x0C, Array(text.utf8)) }

    /// `[APPLICATION 16] { INTEGER 1, [CONTEXT 16] { keychain-access-groups: [group] } }`.
    static func derEntitlements(_ groups: [String], dictionaryTag: UInt8 = 0xB0) -> [UInt8] {
        let pair = der(0x30, derString("keychain-access-groups") + der(0x30, groups.flatMap(derString)))
        return der(0x70, der(0x02, [1]) + der(dictionaryTag, pair))
    }

    /// Two blobs in one super blob: XML in slot 5 and DER in slot 7, each `(slot, magic, content)`.
    static func superBlob(_ blobs: [(UInt32, UInt32, [UInt8])]) -> [UInt8] {
        let header = 12 + 8 * blobs.count
        var index: [UInt8] = []
        var body: [UInt8] = []
        for (slot, magic, content) in blobs {
            index += be32(slot) + be32(UInt32(header + body.count))
            body += be32(magic) + be32(UInt32(8 + content.count)) + content
        }
        return be32(0xFADE_0CC0) + be32(UInt32(header + body.count)) + be32(UInt32(blobs.count)) + index + body
    }

    @Test func derEntitlementsAloneOrBesideXMLAreRead() throws {
        let der = Self.derEntitlements(["SKMME9E2Y8.com.example.shared"])
        for dictionaryTag: UInt8 in [0xB0, 0x31] {
            let only = Self.thin(
                signature: Self.superBlob(
                    Self.derEntitlements(["SKMME9E2Y8.com.example.shared"], dictionaryTag: dictionaryTag), slot: 7, blobMagic: 0xFADE_7172))
            let document = try ProfileDocument.decode(only, path: "test")
            #expect(document.entitlements["keychain-access-groups"]?.stringArray == ["SKMME9E2Y8.com.example.shared"])
        }
        // Both forms saying the same: the XML is read.
        let both = Self.thin(signature: Self.superBlob([(5, 0xFADE_7171, Self.entitlements), (7, 0xFADE_7172, der)]))
        #expect(try Self.read(both) == Self.entitlements)
        // Both forms saying different things: refused, since the system may use either.
        let other = Self.derEntitlements(["ZZZZZ99999.com.other"])
        let split = Self.thin(signature: Self.superBlob([(5, 0xFADE_7171, Self.entitlements), (7, 0xFADE_7172, other)]))
        #expect {
            try Self.read(split)
        } throws: { error in
            (error as? ProfileError)?.message.contains("XML and DER entitlements that differ") == true
        }
        // codesign --der output, with its blob header, is a profile too.
        let blob = Self.be32(0xFADE_7172) + Self.be32(UInt32(8 + der.count)) + der
        #expect(try ProfileDocument.decode(blob, path: "test").entitlements["keychain-access-groups"]?.stringArray?.count == 1)
    }

    /// Hostile DER ends in a ProfileError, in one linear pass.
    @Test(
        arguments: [
            ("truncated", Array(derEntitlements(["a.b"]).dropLast(3))),
            ("indefinite length", [0x70, 0x80, 0x02, 0x01, 0x01, 0x00, 0x00]),
            ("five length bytes", [0x70, 0x85, 0, 0, 0, 0, 3, 0x02, 0x01, 0x01]),
            ("length past the end", der(0x70, der(0x02, [1]) + [0xB0, 0x7F])),
            (
                "a key twice",
                der(
                    0x70,
                    der(0x02, [1]) + der(0xB0, der(0x30, derString("k") + derString("a")) + der(0x30, derString("k") + derString("b"))))
            ),
            ("not UTF-8", der(0x70, der(0x02, [1]) + der(0xB0, der(0x30, derString("k") + der(0x0C, [0xFF, 0xFE]))))),
            ("unknown tag", der(0x70, der(0x02, [1]) + der(0xB0, der(0x30, derString("k") + der(0x17, [1]))))),
            ("multi-byte tag", der(0x70, der(0x02, [1]) + der(0xB0, der(0x30, derString("k") + [0x1F, 0x81, 0x01, 0x00])))),
            (
                "too deep",
                der(
                    0x70,
                    der(0x02, [1]) + der(0xB0, der(0x30, derString("k") + (0..<40).reduce(derString("x")) { inner, _ in der(0x30, inner) }))
                )
            ),
            ("no dictionary", der(0x70, der(0x02, [1]) + derString("x"))),
            ("bytes after", derEntitlements(["a.b"]) + [0]),
        ] as [(String, [UInt8])])
    func hostileDERIsRefused(_ what: String, _ bytes: [UInt8]) {
        let signed = Self.thin(signature: Self.superBlob(bytes, slot: 7, blobMagic: 0xFADE_7172))
        #expect(throws: ProfileError.self, "\(what)") { try ProfileDocument.decode(signed, path: "test") }
    }
}
