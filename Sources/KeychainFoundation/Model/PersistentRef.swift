/// A persistent reference: the class code's four bytes followed by the item's 16-byte UUID
/// (docs/FIDELITY.md). Assigned on add and kept for the item's life.
package struct PersistentRef: Sendable, Hashable {
    /// The item's class.
    package let itemClass: ItemClass
    /// The item's UUID.
    package let uuid: [UInt8]

    /// A reference from its parts.
    package init(itemClass: ItemClass, uuid: [UInt8]) {
        self.itemClass = itemClass
        self.uuid = uuid
    }

    /// Parses the 20 raw bytes; `nil` if they are not a reference to a stored class.
    package init?(bytes: [UInt8]) {
        guard bytes.count == 20,
            let code = String(validating: bytes[0..<4], as: UTF8.self),
            let itemClass = ItemClass(rawValue: code), itemClass != .identity
        else { return nil }
        self.init(itemClass: itemClass, uuid: Array(bytes[4...]))
    }

    /// The 20 bytes.
    package var bytes: [UInt8] { Array(itemClass.rawValue.utf8) + uuid }

    /// The base64 form used on the command line and in JSON.
    package var base64: String { Base64.encode(bytes) }
}
