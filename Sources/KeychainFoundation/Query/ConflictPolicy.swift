/// What `migrate-group` does with an item whose primary key already exists in the target group.
package enum ConflictPolicy: String, Sendable, CaseIterable {
    /// Change nothing and name every conflict (errSecDuplicateItem).
    case fail
    /// Leave conflicting items where they are; move the rest.
    case skip
    /// Overwrite the target's item with the source's.
    case replace
}
