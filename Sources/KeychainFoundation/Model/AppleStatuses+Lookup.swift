import TextEscaping

/// Finding a row of Apple's status table, the one place a status's name and message are written.
extension AppleStatuses {
    /// The row declaring `status` (the first, where two headers declare the same number).
    package static func row(status: Int32) -> Row? { rows.first { $0.status == status } }

    /// The row called `name`: Apple's constant (`errSecItemNotFound`), with or without its `errSec`
    /// prefix, in any case.
    package static func row(named name: String) -> Row? {
        let wanted = name.lowercased()
        return rows.first { $0.name.lowercased() == wanted || $0.name.lowercased() == "errsec" + wanted }
    }
}

extension AppleStatuses.Row {
    /// The status as Apple's documentation prints it: its 32 bits in hex (`0xFFFF9D2C`).
    package var hex: String { "0x" + String.hex(UInt32(bitPattern: status), digits: 8) }
}
