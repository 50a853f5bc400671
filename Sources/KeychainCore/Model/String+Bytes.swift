extension String {
    /// Whether the two strings are the same bytes. Swift's `==` treats canonically equivalent
    /// strings (`é` as one code point or as `e` and a combining accent) as equal, but SQLite, the
    /// authenticated data and Apple's `CFEqual` on access groups compare bytes: every entitlement
    /// check uses this, so that the check and the SQL can never disagree about a group.
    package func sameBytes(as other: String) -> Bool { utf8.elementsEqual(other.utf8) }
}
