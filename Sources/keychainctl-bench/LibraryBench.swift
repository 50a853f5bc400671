import Foundation
import Security
import SecurityTesting

/// The `Security` library in process, beside the command: one SecItemCopyMatching of one item and
/// one SecItemAdd in a keychain of 1,000 items held in memory, after the first call (which opens
/// the file and derives the keys once per process): medians, and SecItemAdd's 99.9th percentile
/// and slowest call, where a write that copies the log into the file shows.
enum LibraryBench {
    static let items = 1_000

    static func run(runs: Int, commandFindHit: Double?) throws -> [String] {
        try SecurityTesting.useInMemoryKeychain(.accessGroups(["SKMME9E2Y8.com.example.app"]))
        defer { SecurityTesting.reset() }
        for index in 0..<items { try check(add(account: "account-\(index)")) }
        var finds: [Double] = []
        for run in 0..<(runs * 25) {
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench",
                kSecAttrAccount as String: "account-\((run * 7919) % items)", kSecReturnData as String: true,
            ]
            var result: CFTypeRef?
            let clock = Bench.Stopwatch()
            try check(SecItemCopyMatching(query as CFDictionary, &result))
            finds.append(clock.seconds)
        }
        // Enough adds for a 99.9th percentile that is not the worst call alone.
        var adds: [Double] = []
        for run in 0..<max(runs * 50, 2_000) {
            let clock = Bench.Stopwatch()
            try check(add(account: "new-\(run)"))
            adds.append(clock.seconds)
        }
        let find = median(finds)
        let faster = commandFindHit.map { " (\(Int(($0 / find).rounded()))× faster than the command's find hit, target ≥ 80×)" } ?? ""
        return [
            "In process (`import Security`, \(items) items, in memory): SecItemCopyMatching of one item \(micro(find)) median of "
                + "\(finds.count)\(faster); SecItemAdd \(micro(median(adds))) median, \(micro(percentile(adds, 0.999))) at the 99.9th "
                + "percentile (target < 1 ms), \(micro(adds.max()!)) the slowest of \(adds.count)."
        ]
    }

    private static func add(account: String) -> OSStatus {
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench", kSecAttrAccount as String: account,
            kSecValueData as String: Data("secret-\(account)".utf8),
        ]
        return SecItemAdd(item as CFDictionary, nil)
    }

    private static func check(_ status: OSStatus) throws {
        guard status == errSecSuccess else { throw BenchFailure("SecItem call failed: \(status) \(SecurityTesting.lastFailure ?? "")") }
    }

    private static func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

    /// The value `fraction` of the values are at or below (nearest rank).
    private static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }

    private static func micro(_ seconds: Double) -> String { "\(Int((seconds * 1_000_000).rounded())) µs" }
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
