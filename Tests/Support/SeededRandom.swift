/// A random number generator for tests that draw their inputs at random, reproducible from its
/// seed: the seed is KEYCHAINCTL_TEST_SEED when set (to replay a failure), else drawn at random;
/// a test puts `description` ("seed N") in every failure message, so a failing input can be drawn
/// again. SplitMix64: small, fast, and every seed gives a full-period sequence.
package struct SeededRandom: RandomNumberGenerator, CustomStringConvertible {
    package let seed: UInt64
    private var state: UInt64

    package init(seed: UInt64? = nil) {
        let given = (getenvString("KEYCHAINCTL_TEST_SEED")).flatMap { UInt64($0) }
        self.seed = seed ?? given ?? UInt64.random(in: 0...UInt64.max)
        state = self.seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// "seed N (KEYCHAINCTL_TEST_SEED=N replays it)".
    package var description: String { "seed \(seed) (KEYCHAINCTL_TEST_SEED=\(seed) replays it)" }
}

#if canImport(Glibc)
    import Glibc
#endif

private func getenvString(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
