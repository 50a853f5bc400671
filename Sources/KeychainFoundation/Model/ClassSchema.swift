/// The attributes, primary key and indexes of one stored item class, as the schema declares them.
package struct ClassSchema: Sendable {
    /// The class.
    package let itemClass: ItemClass
    /// Every attribute the class has, common ones first.
    package let attributes: [AttributeDescriptor]
    /// The UNIQUE constraint, in Apple's order (its constant tail `vwht tkid musr ggrp` is not modelled).
    package let primaryKey: [String]
    /// The UNIQUE constraint's columns, in its order.
    package let primaryKeyColumns: [String]
    /// Digest columns worth a lookup index besides the primary key's.
    package let indexed: [String]
    /// Attributes kept in plaintext columns, in declaration order: bound into the authenticated data.
    package let plaintextAttributes: [AttributeDescriptor]
    /// Attributes kept as digests and inside the sealed metadata, in declaration order.
    package let digestAttributes: [AttributeDescriptor]
    /// Attributes sealed with the data (`ItemSecret`), in declaration order: no column at all.
    package let dataFields: [AttributeDescriptor]

    private let byCode: [String: AttributeDescriptor]

    package init(_ itemClass: ItemClass, attributes: [AttributeDescriptor], primaryKey: [String], indexed: [String]) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.primaryKey = primaryKey
        self.indexed = indexed
        self.plaintextAttributes = attributes.filter(\.isPlaintextColumn)
        self.digestAttributes = attributes.filter { $0.storage == .digest }
        self.dataFields = attributes.filter(\.isDataField)
        // Filled in a loop: an array of (code, descriptor) pairs to build it from cost a find
        // 25,000 instructions (a tuple array's growth and the merge) for 22 attributes.
        var byCode = [String: AttributeDescriptor](minimumCapacity: attributes.count)
        for attribute in attributes { byCode[attribute.code] = attribute }
        self.byCode = byCode
        self.primaryKeyColumns = primaryKey.map { byCode[$0]!.column }
    }

    /// The attribute with `code`, if this class has it.
    package func attribute(_ code: String) -> AttributeDescriptor? { byCode[code] }

    /// The SQL table name: the class code, as Apple names its tables.
    package var table: String { itemClass.rawValue }
}
