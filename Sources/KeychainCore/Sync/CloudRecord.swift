import KeychainFormats
import KeychainFoundation

/// One item as the cloud store holds it (docs/SYNC.md): keyed by
/// a UUID every device of the account shares (CloudKit's record name), with a change tag bumped on
/// every write, its class, every synced attribute and its secret (the data alone in a `kcr1`
/// record, data and data fields in a `kcr2`). Sealed whole under the account key,
/// with the UUID bound into the authenticated data: a record renamed to another UUID, moved from
/// another account or altered does not open.
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

    private static let bareMagic = Array("kcr1".utf8)
    private static let envelopeMagic = Array("kcr2".utf8)

    /// The authenticated data of record `uuid`.
    static func associatedData(_ uuid: Bytes16) -> [UInt8] { SealFormat.lengthPrefixed([Array("kcc1 record".utf8), uuid.bytes]) }

    /// The sealed form, under `accountKey`.
    func sealed(under accountKey: SecretBytes) -> [UInt8] {
        let attributeBytes = Item.encode(attributes, tamperCheck: [], including: { _ in true })
        let plain = SecretBytes(count: 0)
        (secret.isBare ? Self.bareMagic : Self.envelopeMagic).withUnsafeBytes { plain.append($0) }
        withUnsafeBytes(of: tag.bigEndian) { plain.append($0) }
        (origin.bytes + originRow.bytes).withUnsafeBytes { plain.append($0) }
        Array(itemClass.rawValue.utf8).withUnsafeBytes { plain.append($0) }
        withUnsafeBytes(of: UInt32(attributeBytes.count).bigEndian) { plain.append($0) }
        attributeBytes.withUnsafeBytes { plain.append($0) }
        secret.sealedForm().withUnsafeBytes { plain.append($0) }
        return plain.withUnsafeBytes { AEAD.seal($0, key: accountKey, associatedData: Self.associatedData(uuid)) }
    }

    /// The record `sealed` holds for `uuid`; `nil` when it does not open under `accountKey` or is
    /// not a record.
    static func open(_ sealed: [UInt8], uuid: Bytes16, accountKey: SecretBytes) -> CloudRecord? {
        guard let plain = AEAD.open(sealed, key: accountKey, associatedData: associatedData(uuid)) else { return nil }
        return plain.withUnsafeBytes { bytes -> CloudRecord? in
            // magic 4, tag 8, origin 16, origin row 16, class 4, attribute length 4.
            guard bytes.count >= 52, [bareMagic, envelopeMagic].contains(Array(bytes.prefix(4))) else { return nil }
            let tag = ByteOrder.bigEndian(bytes[4..<12])
            guard let origin = Bytes16(UnsafeRawBufferPointer(rebasing: bytes[12..<28])),
                let originRow = Bytes16(UnsafeRawBufferPointer(rebasing: bytes[28..<44])),
                let code = String(validating: bytes[44..<48], as: UTF8.self), let itemClass = ItemClass(rawValue: code),
                ItemClass.stored.contains(itemClass)
            else { return nil }
            let length = Int(ByteOrder.bigEndian(bytes[48..<52]))
            guard length <= bytes.count - 52,
                let decoded = Item.decodeMetadata(UnsafeRawBufferPointer(rebasing: bytes[52..<(52 + length)]))
            else { return nil }
            let sealedSecret = SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[(52 + length)...]))
            guard
                let secret = Array(bytes.prefix(4)) == bareMagic
                    ? ItemSecret(data: sealedSecret) : ItemSecret.opening(envelope: sealedSecret, itemClass: itemClass)
            else { return nil }
            return CloudRecord(
                uuid: uuid, tag: tag, itemClass: itemClass, attributes: decoded.attributes, secret: secret, origin: origin,
                originRow: originRow)
        }
    }
}
