import KeychainFormats
import KeychainFoundation

/// One item as the cloud store holds it (docs/SYNC.md): keyed by a UUID every device of the
/// account shares (CloudKit's record name), with a change tag bumped on every write, its class,
/// every synced attribute and its secret; or, once the item is deleted, a tombstone: the same UUID
/// with a newer tag and nothing else (CKKS's deletions are records too). Sealed whole under the
/// account key, with the UUID bound into the authenticated data: a record renamed to another UUID,
/// moved from another account or altered does not open.
///
/// Formats: `kcr1` (a bare secret) and `kcr2` (data and data fields) are version-1 stores'
/// unsigned records; `kcr3`, a version-2 store's, adds the kind (item or tombstone), the time it
/// was written and the writing device's signature over everything else.
package struct CloudRecord {
    package var uuid: Bytes16
    package var tag: UInt64
    package var itemClass: ItemClass
    package var attributes: [String: AttributeValue]
    package var secret: ItemSecret
    /// The device that wrote this version (its sync state's identity) and the row it came from
    /// there: a device finding its own upload that it never recorded (its sync was killed between
    /// writing the record and committing) adopts it instead of taking it for another device's.
    package var origin: Bytes16
    package var originRow: Bytes16
    /// A deletion: no attributes, no secret.
    package var isTombstone = false
    /// When the writer wrote it (nanoseconds since 1970; 0 in unsigned records).
    package var written: UInt64 = 0
    /// The writer's signature and the digest it signs (`kcr3` records, once opened): the session
    /// checks it against the device list.
    package private(set) var signature: [UInt8]?
    package private(set) var signedDigest: [UInt8] = []
    /// The digest of the file it was read from (`CloudStore.record`), which a head lists.
    package var fileDigest = Bytes16.zero

    package init(
        uuid: Bytes16, tag: UInt64, itemClass: ItemClass, attributes: [String: AttributeValue], secret: ItemSecret,
        origin: Bytes16 = .zero, originRow: Bytes16 = .zero
    ) {
        self.uuid = uuid
        self.tag = tag
        self.origin = origin
        self.originRow = originRow
        self.itemClass = itemClass
        self.attributes = attributes
        self.secret = secret
    }

    /// The tombstone of record `uuid` (class `itemClass`), version `tag`, written by `origin`.
    package static func tombstone(uuid: Bytes16, tag: UInt64, itemClass: ItemClass, origin: Bytes16) -> CloudRecord {
        var record = CloudRecord(
            uuid: uuid, tag: tag, itemClass: itemClass, attributes: [:], secret: ItemSecret(data: SecretBytes(count: 0)), origin: origin)
        record.isTombstone = true
        return record
    }

    private static let bareMagic = Array("kcr1".utf8)
    private static let envelopeMagic = Array("kcr2".utf8)
    private static let signedMagic = Array("kcr3".utf8)

    private enum Kind: UInt8 {
        case bare = 0, envelope = 1, tombstone = 2
    }

    /// The authenticated data of record `uuid`.
    static func associatedData(_ uuid: Bytes16) -> [UInt8] { SealFormat.lengthPrefixed([Array("kcc1 record".utf8), uuid.bytes]) }

    /// The sealed form, under `accountKey`: signed by `signer` (`kcr3`), or unsigned (`kcr1`,
    /// `kcr2`, a version-1 store's) without one.
    package func sealed(under accountKey: SecretBytes, signer: DeviceSigningKey?) -> [UInt8] {
        let attributeBytes = Item.encode(attributes, tamperCheck: [], including: { _ in true })
        let plain = SecretBytes(count: 0)
        if signer != nil {
            Self.signedMagic.withUnsafeBytes { plain.append($0) }
            let kind: Kind = isTombstone ? .tombstone : secret.isBare ? .bare : .envelope
            [kind.rawValue].withUnsafeBytes { plain.append($0) }
        } else {
            (secret.isBare ? Self.bareMagic : Self.envelopeMagic).withUnsafeBytes { plain.append($0) }
        }
        withUnsafeBytes(of: tag.bigEndian) { plain.append($0) }
        (origin.bytes + originRow.bytes).withUnsafeBytes { plain.append($0) }
        if signer != nil { withUnsafeBytes(of: written.bigEndian) { plain.append($0) } }
        Array(itemClass.rawValue.utf8).withUnsafeBytes { plain.append($0) }
        withUnsafeBytes(of: UInt32(attributeBytes.count).bigEndian) { plain.append($0) }
        attributeBytes.withUnsafeBytes { plain.append($0) }
        if !isTombstone { secret.sealedForm().withUnsafeBytes { plain.append($0) } }
        if let signer {
            let digest = plain.withUnsafeBytes { Self.digestToSign(uuid: uuid, body: $0) }
            signer.sign(digest).withUnsafeBytes { plain.append($0) }
        }
        return plain.withUnsafeBytes { AEAD.seal($0, key: accountKey, associatedData: Self.associatedData(uuid)) }
    }

    /// What a writer signs: a BLAKE2b-256 of the record's UUID and body (so the secret is hashed in
    /// guarded memory, never copied out to be signed).
    private static func digestToSign(uuid: Bytes16, body: UnsafeRawBufferPointer) -> [UInt8] {
        Sodium.fingerprint { (feed) throws(Never) in
            SealFormat.lengthPrefixed([Array("kcc2 signed record".utf8), uuid.bytes]).withUnsafeBytes(feed)
            feed(body)
        }
    }

    /// The record `sealed` holds for `uuid`; `nil` when it does not open under `accountKey` or is
    /// not a record. A signed record's signature is not checked here (see `signature`).
    package static func open(_ sealed: [UInt8], uuid: Bytes16, accountKey: SecretBytes) -> CloudRecord? {
        guard let plain = AEAD.open(sealed, key: accountKey, associatedData: associatedData(uuid)) else { return nil }
        return plain.withUnsafeBytes { parse($0, uuid: uuid) }
    }

    /// The record an opened (plaintext) record `uuid` holds; `nil` when it is not one.
    package static func parse(_ all: UnsafeRawBufferPointer, uuid: Bytes16) -> CloudRecord? {
        guard all.count >= 4 else { return nil }
        let magic = Array(all.prefix(4))
        let signed = magic == signedMagic
        guard signed || magic == bareMagic || magic == envelopeMagic else { return nil }
        // Signed: magic 4, kind 1, tag 8, origin 16, origin row 16, written 8, class 4, attribute
        // length 4, then the attributes, the secret and a 64-byte signature. Unsigned: no kind,
        // written or signature.
        let signatureBytes = signed ? DeviceSigningKey.signatureBytes : 0
        guard all.count >= signatureBytes else { return nil }
        let bytes = UnsafeRawBufferPointer(rebasing: all[0..<(all.count - signatureBytes)])
        var offset = 4
        var kind: Kind = magic == bareMagic ? .bare : .envelope
        if signed {
            guard bytes.count > 4, let read = Kind(rawValue: bytes[4]) else { return nil }
            kind = read
            offset = 5
        }
        let fixed = offset + 8 + 32 + (signed ? 8 : 0) + 8
        guard bytes.count >= fixed else { return nil }
        let tag = ByteOrder.bigEndian(bytes[offset..<(offset + 8)])
        offset += 8
        guard let origin = Bytes16(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 16)])),
            let originRow = Bytes16(UnsafeRawBufferPointer(rebasing: bytes[(offset + 16)..<(offset + 32)]))
        else { return nil }
        offset += 32
        var written: UInt64 = 0
        if signed {
            written = ByteOrder.bigEndian(bytes[offset..<(offset + 8)])
            offset += 8
        }
        guard let code = String(validating: bytes[offset..<(offset + 4)], as: UTF8.self), let itemClass = ItemClass(rawValue: code),
            ItemClass.stored.contains(itemClass)
        else { return nil }
        let length = Int(ByteOrder.bigEndian(bytes[(offset + 4)..<(offset + 8)]))
        offset += 8
        guard length <= bytes.count - offset,
            let decoded = Item.decodeMetadata(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]))
        else { return nil }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[(offset + length)...])
        let secret: ItemSecret?
        switch kind {
        case .tombstone:
            guard length == 0 || decoded.attributes.isEmpty, rest.isEmpty else { return nil }
            secret = ItemSecret(data: SecretBytes(count: 0))
        case .bare: secret = ItemSecret(data: SecretBytes(copying: rest))
        case .envelope: secret = ItemSecret.opening(envelope: SecretBytes(copying: rest), itemClass: itemClass)
        }
        guard let secret else { return nil }
        var record = CloudRecord(
            uuid: uuid, tag: tag, itemClass: itemClass, attributes: decoded.attributes, secret: secret, origin: origin,
            originRow: originRow)
        record.isTombstone = kind == .tombstone
        record.written = written
        if signed {
            record.signature = Array(all.suffix(signatureBytes))
            record.signedDigest = digestToSign(uuid: uuid, body: bytes)
        }
        return record
    }

    /// Whether the record carries `publicKey`'s signature.
    func isSigned(by publicKey: [UInt8]) -> Bool {
        guard let signature else { return false }
        return DeviceSigningKey.verify(signature, of: signedDigest, publicKey: publicKey)
    }

    /// `sealed` (record `uuid`, as sealed under `oldKey`) sealed under `newKey` instead, its
    /// contents and signature untouched; `nil` when it does not open under `oldKey`.
    package static func reseal(_ sealed: [UInt8], uuid: Bytes16, from oldKey: SecretBytes, to newKey: SecretBytes) -> [UInt8]? {
        guard let plain = AEAD.open(sealed, key: oldKey, associatedData: associatedData(uuid)) else { return nil }
        return plain.withUnsafeBytes { AEAD.seal($0, key: newKey, associatedData: associatedData(uuid)) }
    }
}
