import KeychainCore

/// What every access-group list holds, whatever entitlements it was built from: each group once,
/// the default add group among the writable ones, the writable ones among the listed ones. The
/// profile and archive fuzzers check it after every decode that succeeds.
package enum GroupListInvariants {
    /// What is wrong with `list`, or nil.
    package static func violation(_ list: AccessGroupList) -> String? {
        let groups = list.groups
        if Set(groups.map { Array($0.utf8) }).count != groups.count { return "a group is listed twice: \(groups)" }
        if !list.writable.allSatisfy({ writable in groups.contains { $0.sameBytes(as: writable) } }) {
            return "a writable group is not listed: \(list.writable) of \(groups)"
        }
        if let landing = list.defaultGroup, !list.writable.contains(where: { $0.sameBytes(as: landing) }) {
            return "the default add group \(landing) is not writable: \(list.writable)"
        }
        if list.defaultGroup == nil, !list.writable.isEmpty { return "writable groups but no default: \(list.writable)" }
        return nil
    }
}
