/// How many one-character edits turn one word into another: insertions, deletions, replacements,
/// and a swap of two neighbours counted as one (`gte` is one edit from `get`, `lsit` from `list`),
/// as git's and cargo's "did you mean" count them. For the short words of a command line and of
/// entitlement keys: the cost is the product of the two lengths.
public enum EditDistance {
    public static func between(_ a: String, _ b: String) -> Int {
        let (x, y) = (Array(a), Array(b))
        guard !x.isEmpty else { return y.count }
        guard !y.isEmpty else { return x.count }
        // Three rows: two back for a swap.
        var before = [Int](repeating: 0, count: y.count + 1)
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { current[j] = min(current[j], before[j - 2] + 1) }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[y.count]
    }

    /// The candidate nearest `word`, when one is within `limit` edits (the first of equals).
    public static func nearest(_ word: String, among candidates: [String], within limit: Int) -> String? {
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = between(word, candidate)
            if distance <= limit, distance < best?.distance ?? Int.max { best = (candidate, distance) }
        }
        return best?.candidate
    }
}
