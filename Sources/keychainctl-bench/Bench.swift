import Glibc
import KeychainCore

/// Set-up and reporting for the benchmark.
enum Bench {
    /// Times a stretch of work.
    struct Stopwatch {
        private var start = timespec()
        init() { clock_gettime(CLOCK_MONOTONIC, &start) }
        var seconds: Double {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return Double(now.tv_sec - start.tv_sec) + Double(now.tv_nsec - start.tv_nsec) / 1e9
        }
        var elapsed: String {
            let seconds = seconds
            return String(Int(seconds * 10) / 10) + "." + String(Int(seconds * 10) % 10)
        }
    }

    /// A fixture profile's path, found from the working directory (the package root under make).
    static func fixture(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let cwd = String(cString: getcwd(&buffer, buffer.count))
        return "\(cwd)/Fixtures/Profiles/\(name)"
    }

    /// Empties `folder`, writes a fresh key file, and returns the key.
    static func prepareFolder(_ folder: String, keyPath: String) -> SecretBytes {
        _ = system("rm -rf '\(folder)' && mkdir -p '\(folder)'")
        let key = SecretBytes.random(count: 32)
        write(key.withUnsafeBytes { Base64.encode(Array($0)) }, to: keyPath)
        return key
    }

    /// A progress line on stderr.
    static func log(_ text: String) {
        let line = text + "\n"
        _ = line.withCString { Glibc.write(2, $0, strlen($0)) }
    }

    static func write(_ text: String, to path: String) {
        let fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0o600)
        _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
        close(fd)
    }

    /// `count` generic passwords through KeychainCore in one transaction: the fastest honest fill.
    /// Each has its own service, or all share `sharedService`.
    static func fill(keychainPath: String, key: SecretBytes, count: Int, profilePath: String, sharedService: String? = nil) throws {
        try Keychain.create(path: keychainPath, credential: .key(key))
        let keychain = try Keychain(path: keychainPath, credential: .key(key))
        let caller = Caller(try Profile.load(path: profilePath, teamID: nil, platform: nil, allowWildcard: false))
        let secret = SecretBytes(copying: Array("bench-secret".utf8))
        var start = 0
        while start < count {
            let end = min(count, start + 10_000)
            try keychain.addAll(
                (start..<end).map { i in
                    (
                        ItemRequest(words: [
                            (Schema.service, sharedService ?? "service-\(i)"), (Schema.account, "account-\(i)"),
                            (Schema.label, "label \(i)"),
                        ]),
                        secret
                    )
                }, caller: caller)
            start = end
        }
    }

    /// The floor's database: a WAL table of `count` rows with an indexed key.
    static func fillSQLite(_ path: String, count: Int) {
        let sql = """
            PRAGMA journal_mode=WAL; CREATE TABLE t (k TEXT PRIMARY KEY, v BLOB);
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(count - 1))
            INSERT INTO t SELECT 'key-' || i, randomblob(64) FROM n;
            """
        _ = system("/usr/bin/sqlite3 '\(path)' \"\(sql)\" > /dev/null")
    }

    /// `migrate-group` of 10,000 items between two groups, back and forth: the median time and the
    /// peak memory of the runs.
    static func migration(binary: String, workdir: String, runs: Int, profilePath: String) throws -> (seconds: Double, peakKilobytes: Int) {
        let folder = "\(workdir)/migration"
        let keychainPath = "\(folder)/keychain.db"
        let keyPath = "\(folder)/key"
        let key = prepareFolder(folder, keyPath: keyPath)
        try fill(keychainPath: keychainPath, key: key, count: 10_000, profilePath: profilePath)
        let environment = [
            "KEYCHAINCTL_KEYCHAIN=\(keychainPath)", "KEYCHAINCTL_KEY_FILE=\(keyPath)", "KEYCHAINCTL_PROFILE=\(profilePath)",
            "HOME=\(folder)",
        ]
        let groups = ["SKMME9E2Y8.com.example.app", "SKMME9E2Y8.com.example.shared"]
        var times: [Double] = []
        var peak = 0
        for index in 0..<runs {
            let measured = ProcessRunner.run(
                [binary, "migrate-group", "--from", groups[index % 2], "--to", groups[(index + 1) % 2], "--format", "json"],
                environment: environment)
            guard measured.status == 0 else { fatalError("migrate-group exited \(measured.status)") }
            times.append(measured.seconds)
            peak = max(peak, measured.peakKilobytes)
        }
        times.sort()
        return (times[times.count / 2], peak)
    }

    /// Instructions counted by callgrind (`nil` without valgrind).
    struct Instructions {
        let find: Int?
        let add: Int?
        let select: Int?
        let insert: Int?
    }

    /// The Markdown table, with the ratios the targets name.
    /// Seconds as milliseconds with two decimals.
    /// A value with two decimals.
    static func decimals(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        return "\(hundredths / 100).\(String(format2: hundredths % 100))"
    }

    static func milliseconds(_ seconds: Double?) -> String {
        guard let seconds else { return "–" }
        let hundredths = Int((seconds * 100_000).rounded())
        return "\(hundredths / 100).\(String(format2: hundredths % 100)) ms"
    }

    static func printTable(
        results: [String: [Int: Double]], pairedFloors: [String: [Int: Double]], sizes: [Int], peakFindKilobytes: Int,
        pageFaults: (find: Int, select: Int), runs: Int,
        migration: (seconds: Double, peakKilobytes: Int), migrationRuns: Int,
        crowded: (hit: (first: Double, second: Double), miss: (first: Double, second: Double)), instructions: Instructions
    ) {
        func ms(_ seconds: Double?) -> String { milliseconds(seconds) }
        func ratio(_ a: Double?, _ b: Double?) -> String {
            guard let a, let b, b > 0 else { return "–" }
            let hundredths = Int((a / b * 100).rounded())
            return "\(hundredths / 100).\(String(format2: hundredths % 100))×"
        }
        let small = sizes[0]
        let large = sizes[1]
        print(
            "| operation (median of \(runs) runs) | \(small) items | \(large) items | \(large) / \(small) | vs floor (\(large), run alternately) | target |"
        )
        print("|---|---|---|---|---|---|")
        let rows: [(String, String?, String)] = [
            ("find hit", "sqlite3 SELECT", "≤ 1.3× floor, ≤ 1.25× growth"),
            ("find miss", "sqlite3 SELECT", "≤ 1.3× floor, ≤ 1.25× growth"),
            ("add", "sqlite3 INSERT", "≤ 1.3× floor, ≤ 1.25× growth"),
            ("delete", nil, "≤ 1.25× growth"),
            ("version", nil, "floor: process start"),
            ("sqlite3 SELECT", nil, "floor"),
            ("sqlite3 INSERT", nil, "floor"),
        ]
        for (name, floor, target) in rows where results[name] != nil {
            let values = results[name]!
            print(
                "| \(name) | \(ms(values[small])) | \(ms(values[large])) | \(ratio(values[large], values[small])) | "
                    + "\(floor.map { ratio(values[large], pairedFloors[name]?[large]) + " " + $0 } ?? "–") | \(target) |")
        }
        print("")
        print(
            "10,000 accounts in one service, against one account per service (run alternately): "
                + "find hit \(ms(crowded.hit.first)) vs \(ms(crowded.hit.second)) (\(ratio(crowded.hit.first, crowded.hit.second))), "
                + "miss \(ms(crowded.miss.first)) vs \(ms(crowded.miss.second)) (\(ratio(crowded.miss.first, crowded.miss.second))); "
                + "target ≤ 1.25×.")
        func millions(_ count: Int?) -> String {
            guard let count else { return "–" }
            return "\(count / 1_000_000).\(String(format2: count % 1_000_000 / 10_000)) M"
        }
        func countRatio(_ a: Int?, _ b: Int?) -> String { ratio(a.map(Double.init), b.map(Double.init)) }
        print(
            "Instructions (valgrind --tool=callgrind, \(small) items): find \(millions(instructions.find)), "
                + "\(countRatio(instructions.find, instructions.select)) sqlite3 SELECT's \(millions(instructions.select)) (target ≤ 1.5×); "
                + "add \(millions(instructions.add)), \(countRatio(instructions.add, instructions.insert)) sqlite3 INSERT's "
                + "\(millions(instructions.insert)).")
        print(
            "Peak memory of a find: \(megabytes(peakFindKilobytes)) (target < 20 MB); page faults of a find: \(pageFaults.find), "
                + "sqlite3 SELECT's: \(pageFaults.select).")
        print(
            "migrate-group of 10,000 items between two groups: median \(ms(migration.seconds)) of \(migrationRuns) runs "
                + "(target < 1.5 s), peak memory \(megabytes(migration.peakKilobytes)) (target < 64 MB).")
    }

    private static func megabytes(_ kilobytes: Int) -> String {
        "\(kilobytes / 1024).\(kilobytes % 1024 * 10 / 1024) MB"
    }
}

extension String {
    /// Two digits, zero-padded.
    init(format2 value: Int) { self = value < 10 ? "0\(value)" : "\(value)" }
}
