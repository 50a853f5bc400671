import Foundation
import KeychainFoundation
import Testing

@testable import KeychainCore

/// A version-2 store's head and marker as someone without the account key, or with it and bad
/// intent, could leave them: every one opens as what was sealed or not at all, never a crash, a
/// hang or a huge allocation.
@Suite struct CloudHeadTests {
    let key = SecretBytes.random(count: 32)

    func sampleHead() -> CloudHead {
        var head = CloudHead(epoch: 3)
        head.devices = [
            CloudHead.Device(id: .random(), name: "mac", publicKey: Sodium.randomBytes(32), revoked: false),
            CloudHead.Device(id: .random(), name: "ci", publicKey: Sodium.randomBytes(32), revoked: true),
        ]
        for index in 0..<50 {
            head.manifest[.random()] = CloudHead.Entry(tag: UInt64(index) << 24, digest: .random(), isTombstone: index % 7 == 0)
        }
        head.advance()
        head.manifest[.random()] = CloudHead.Entry(tag: 1 << 24, digest: .random(), isTombstone: false)
        head.advance()
        return head
    }

    /// Seals `plain` as a head of epoch 3 would be.
    func seal(_ plain: [UInt8]) -> [UInt8] {
        plain.withUnsafeBytes { AEAD.seal($0, key: key, associatedData: CloudHead.associatedData(epoch: 3)) }
    }

    @Test func aHeadOpensAsSealedAndOnlyUnderItsKeyAndEpoch() throws {
        let head = sampleHead()
        let sealed = head.sealed(under: key)
        #expect(CloudHead.open(sealed, epoch: 3, accountKey: key) == head)
        #expect(CloudHead.open(sealed, epoch: 2, accountKey: key) == nil, "an older epoch's head is not this one")
        #expect(CloudHead.open(sealed, epoch: 3, accountKey: .random(count: 32)) == nil)
        #expect(head.descends(from: 1, link: head.links[0]) && head.descends(from: 0, link: []))
        #expect(!head.descends(from: 1, link: head.links[1]) && !head.descends(from: 3, link: head.current))
        for cut in [0, 1, 24, sealed.count / 2, sealed.count - 1] {
            #expect(CloudHead.open(Array(sealed.prefix(cut)), epoch: 3, accountKey: key) == nil, "cut to \(cut)")
        }
        for index in stride(from: 0, to: sealed.count, by: max(1, sealed.count / 40)) {
            var flipped = sealed
            flipped[index] ^= 0x20
            #expect(CloudHead.open(flipped, epoch: 3, accountKey: key) == nil, "byte \(index) flipped")
        }
    }

    /// Sealed with the account key but written by hand: counts beyond the data, a body swapped
    /// under an old chain, duplicate devices, names that are not UTF-8, trailing bytes.
    @Test func aHeadWrittenByAKeyHolderByHandIsRefusedUnlessWhole() throws {
        let head = sampleHead()
        let plain = try #require(AEAD.openPublic(head.sealed(under: key), key: key, associatedData: CloudHead.associatedData(epoch: 3)))
        #expect(CloudHead.open(seal(plain), epoch: 3, accountKey: key) == head, "resealed as it is, it opens")
        #expect(CloudHead.open(seal(plain + [0]), epoch: 3, accountKey: key) == nil, "trailing bytes")
        var huge = plain
        huge.replaceSubrange(8..<12, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(CloudHead.open(seal(huge), epoch: 3, accountKey: key) == nil, "4 billion links claimed")
        var swapped = head
        swapped.manifest[.random()] = CloudHead.Entry(tag: 9, digest: .random(), isTombstone: false)
        #expect(CloudHead.open(swapped.sealed(under: key), epoch: 3, accountKey: key) == nil, "a body its last link does not seal")
        var twins = head
        twins.devices[1].name = "mac"
        twins.links.removeLast()
        twins.advance()
        #expect(CloudHead.open(twins.sealed(under: key), epoch: 3, accountKey: key) == nil, "two devices under one name")
        var badName = head
        badName.devices[0].name = "a\u{FFFD}"
        badName.links.removeLast()
        badName.advance()
        let sealedBad = badName.sealed(under: key)
        var raw = try #require(AEAD.openPublic(sealedBad, key: key, associatedData: CloudHead.associatedData(epoch: 3)))
        let at = try #require(raw.firstRange(of: Array("a\u{FFFD}".utf8)))
        raw.replaceSubrange(at, with: [0x61, 0xFF, 0xFE, 0xFD])
        #expect(CloudHead.open(seal(raw), epoch: 3, accountKey: key) == nil, "a name that is not UTF-8")
        for _ in 0..<300 {
            var garbage = Sodium.randomBytes(Int.random(in: 0..<200))
            if Bool.random() { garbage = Array("kch1".utf8) + garbage }
            #expect(CloudHead.open(seal(garbage), epoch: 3, accountKey: key) == nil)
        }
    }

    @Test func aMarkerTellsTheCurrentKeyAFormerKeyAndAStrangerApart() throws {
        let old = SecretBytes.random(count: 32)
        let marker = CloudMarker(epoch: 2, key: key, notices: [CloudMarker.notice(rotatingTo: 2, oldKey: old)])
        let parsed = try #require(CloudMarker(parsing: marker.bytes))
        #expect(parsed.epochOpened(with: key) == 2)
        guard case .rotated(let notice)? = parsed.open(with: old) else {
            Issue.record("the former key does not open its notice")
            return
        }
        #expect(notice.epoch == 2 && notice.description.hasPrefix("at epoch 2 ("))
        #expect(parsed.open(with: .random(count: 32)) == nil)
        let bytes = marker.bytes
        for cut in 0..<bytes.count where cut % 7 == 0 || cut < 12 {
            if let cutShort = CloudMarker(parsing: Array(bytes.prefix(cut))) {
                #expect(cutShort.open(with: key) == nil || cut == bytes.count, "cut to \(cut)")
            }
        }
        var claimed = bytes
        claimed.replaceSubrange(4..<8, with: [0x7F, 0xFF, 0xFF, 0xFF])
        #expect(CloudMarker(parsing: claimed) == nil, "more parts claimed than the file holds")
        #expect(CloudMarker(parsing: Array("kcc2".utf8) + [0, 0, 0, 0]) == nil, "no current part")
    }
}
