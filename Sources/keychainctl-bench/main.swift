import Glibc
import KeychainCore

// keychainctl-bench BINARY WORKDIR [RUNS]
//
// Measures, in one run and side by side, the median whole-process time of keychainctl's find (hit
// and miss), add and delete on keychains of 1,000 and 100,000 items, beside the floor measured in
// the same run: `keychainctl --version`, and the sqlite3 tool's indexed SELECT and INSERT on a WAL
// database of the same size; find among 10,000 accounts of one service; and migrate-group of 10,000
// items between two groups. Prints a Markdown table with the ratios the issues' targets name.

let arguments = CommandLine.arguments
// `keychainctl-bench --library [RUNS]`: the in-process figures alone.
if arguments.count >= 2, arguments[1] == "--library" {
    for line in try LibraryBench.run(runs: arguments.count > 2 ? Int(arguments[2]) ?? 41 : 41, commandFindHit: nil) { print(line) }
    exit(0)
}
// `keychainctl-bench --sync BINARY WORKDIR`: sync's figures alone.
if arguments.count >= 4, arguments[1] == "--sync" {
    for line in SyncBench.run(binary: arguments[2], workdir: arguments[3], runs: 11, profilePath: Bench.fixture("app.plist")) {
        print(line)
    }
    exit(0)
}
// `keychainctl-bench --ci BINARY WORKDIR`: the CI commands' figures alone.
if arguments.count >= 4, arguments[1] == "--ci" {
    for line in try CIBench.run(binary: arguments[2], workdir: arguments[3], runs: 41, profilePath: Bench.fixture("app.plist")) {
        print(line)
    }
    exit(0)
}
guard arguments.count >= 3 else {
    Bench.log("usage: keychainctl-bench BINARY WORKDIR [RUNS]")
    exit(64)
}
let binary = arguments[1]
let workdir = arguments[2]
let runs = arguments.count > 3 ? Int(arguments[3]) ?? 41 : 41
let sqlite3 = "/usr/bin/sqlite3"
let profilePath = Bench.fixture("app.plist")

var results: [String: [Int: Double]] = [:]
/// For each operation with a floor, the floor's median from the runs alternating with it.
var pairedFloors: [String: [Int: Double]] = [:]
var peakFindKilobytes = 0
/// Page faults of one find and of sqlite3's SELECT on the same size, the last size measured.
var pageFaults = (find: 0, select: 0)
let sizes = [1_000, 100_000]
for size in sizes {
    let folder = "\(workdir)/\(size)"
    let keychainPath = "\(folder)/keychain.db"
    let keyPath = "\(folder)/key"
    let key = Bench.prepareFolder(folder, keyPath: keyPath)
    let clock = Bench.Stopwatch()
    try Bench.fill(keychainPath: keychainPath, key: key, count: size, profilePath: profilePath)
    Bench.log("filled \(size) items in \(clock.elapsed) s")
    let sqlitePath = "\(folder)/floor.db"
    Bench.fillSQLite(sqlitePath, count: size)

    let environment = [
        "KEYCHAINCTL_KEYCHAIN=\(keychainPath)", "KEYCHAINCTL_KEY_FILE=\(keyPath)", "KEYCHAINCTL_PROFILE=\(profilePath)",
        "HOME=\(folder)",
    ]
    let middle = size / 2
    results["version", default: [:]][size] = ProcessRunner.median(runs: runs, environment: environment) { _ in [binary, "--version"] }
    // Each operation that has a floor runs alternately with it, so that the machine's noise falls
    // on both sides of the ratio alike.
    func paired(
        _ name: String, floor floorName: String, expected: Int32 = 0, _ mine: @escaping (Int) -> [String],
        _ floor: @escaping (Int) -> [String]
    ) {
        let (measured, floorMeasured) = ProcessRunner.alternatingMedians(
            runs: runs, expected: (expected, 0), (environment, mine), ([], floor))
        results[name, default: [:]][size] = measured
        pairedFloors[name, default: [:]][size] = floorMeasured
        if results[floorName]?[size] == nil { results[floorName, default: [:]][size] = floorMeasured }
    }
    let select = { (i: Int) in [sqlite3, sqlitePath, "SELECT v FROM t WHERE k = 'key-\((middle + i * 7) % size)'"] }
    paired(
        "find hit", floor: "sqlite3 SELECT",
        { i in
            [binary, "find", "-s", "service-\((middle + i * 7) % size)", "-a", "account-\((middle + i * 7) % size)"]
        }, select)
    paired("find miss", floor: "sqlite3 SELECT", expected: 44, { i in [binary, "find", "-s", "absent-\(i)", "-a", "nobody"] }, select)
    let secretFile = "\(folder)/secret"
    Bench.write("bench-secret", to: secretFile)
    paired("add", floor: "sqlite3 INSERT", { i in [binary, "add", "-s", "added-\(i)", "-a", "bench", "--data-file", secretFile] }) { i in
        [sqlite3, sqlitePath, "INSERT INTO t VALUES ('new-\(i)', randomblob(64))"]
    }
    results["delete", default: [:]][size] = ProcessRunner.median(runs: runs, environment: environment) { i in
        [binary, "delete", "-s", "service-\(i)", "-a", "account-\(i)"]
    }
    let peak = ProcessRunner.run([binary, "find", "-s", "service-\(middle)", "-a", "account-\(middle)"], environment: environment)
    peakFindKilobytes = max(peakFindKilobytes, peak.peakKilobytes)
    pageFaults = (peak.pageFaults, ProcessRunner.run(select(0), environment: []).pageFaults)
}
// 10,000 accounts under one service: a find naming service and account must use the primary key's
// index, not walk the service's.
let crowdedFolder = "\(workdir)/crowded"
let crowdedKey = Bench.prepareFolder(crowdedFolder, keyPath: "\(crowdedFolder)/key")
try Bench.fill(
    keychainPath: "\(crowdedFolder)/keychain.db", key: crowdedKey, count: 10_000, profilePath: profilePath, sharedService: "crowded")
let crowdedEnvironment = [
    "KEYCHAINCTL_KEYCHAIN=\(crowdedFolder)/keychain.db", "KEYCHAINCTL_KEY_FILE=\(crowdedFolder)/key",
    "KEYCHAINCTL_PROFILE=\(profilePath)", "HOME=\(crowdedFolder)",
]
// Each against the same find on the 1,000-item keychain (one account per service), alternately.
let smallFolder = "\(workdir)/1000"
let smallEnvironment = [
    "KEYCHAINCTL_KEYCHAIN=\(smallFolder)/keychain.db", "KEYCHAINCTL_KEY_FILE=\(smallFolder)/key",
    "KEYCHAINCTL_PROFILE=\(profilePath)", "HOME=\(smallFolder)",
]
let crowdedHit = ProcessRunner.alternatingMedians(
    runs: runs, (crowdedEnvironment, { i in [binary, "find", "-s", "crowded", "-a", "account-\((5_000 + i * 7) % 10_000)"] }),
    (smallEnvironment, { i in [binary, "find", "-s", "service-\((500 + i * 7) % 1_000)", "-a", "account-\((500 + i * 7) % 1_000)"] }))
let crowdedMiss = ProcessRunner.alternatingMedians(
    runs: runs, expected: (44, 44), (crowdedEnvironment, { i in [binary, "find", "-s", "crowded", "-a", "nobody-\(i)"] }),
    (smallEnvironment, { i in [binary, "find", "-s", "service-\(i % 1_000)", "-a", "nobody-\(i)"] }))
// explain among the 10,000 accounts of one service: every item differs from the query in one
// dimension, so every one is a candidate to rank (the worst case for explain).
let explainTimes = ProcessRunner.alternatingMedians(
    runs: runs, (crowdedEnvironment, { i in [binary, "explain", "-s", "crowded", "-a", "nobody-\(i)"] }),
    (crowdedEnvironment, { i in [binary, "find", "-s", "crowded", "-a", "account-\((5_000 + i * 7) % 10_000)"] }))
// matrix of the same 10,000 items against the seeds' three targets (app, share extension,
// widget): every item is opened once and judged for each target.
let targets = [("app", "app.plist"), ("share", "share-extension.plist"), ("widget", "widget.plist")].flatMap { name, file in
    ["--profile", "\(name)=\(Bench.fixture(file))"]
}
let matrixTimes = ProcessRunner.alternatingMedians(
    runs: runs, (crowdedEnvironment, { _ in [binary, "matrix", "-s", "crowded"] + targets }),
    (crowdedEnvironment, { i in [binary, "find", "-s", "crowded", "-a", "account-\((5_000 + i * 7) % 10_000)"] }))
// Instruction counts on the 1,000-item keychain, against sqlite3 on its floor database.
let floorPath = "\(smallFolder)/floor.db"
let counted = Bench.Instructions(
    find: ProcessRunner.instructions(
        [binary, "find", "-s", "service-500", "-a", "account-500"], environment: smallEnvironment, scratch: smallFolder),
    add: ProcessRunner.instructions(
        [binary, "add", "-s", "counted", "-a", "bench", "--data-file", "\(smallFolder)/secret"], environment: smallEnvironment,
        scratch: smallFolder),
    select: ProcessRunner.instructions(
        [sqlite3, floorPath, "SELECT v FROM t WHERE k = 'key-500'"], environment: [], scratch: smallFolder),
    insert: ProcessRunner.instructions(
        [sqlite3, floorPath, "INSERT INTO t VALUES ('counted', randomblob(64))"], environment: [], scratch: smallFolder))
let migrationRuns = 5
let migration = try Bench.migration(binary: binary, workdir: workdir, runs: migrationRuns, profilePath: profilePath)
// Every figure below is of the binary measured: its --version names its commit (-dirty for a tree
// with changes).
print("Figures of \(ProcessRunner.firstLine(binary, "--version") ?? binary).")
print("")
Bench.printTable(
    results: results, pairedFloors: pairedFloors, sizes: sizes, peakFindKilobytes: peakFindKilobytes, pageFaults: pageFaults, runs: runs,
    migration: migration,
    migrationRuns: migrationRuns, crowded: (crowdedHit, crowdedMiss), instructions: counted)
print(
    "explain among 10,000 items (one service, every item a near miss): median \(Bench.milliseconds(explainTimes.first)) of \(runs) runs, "
        + "alternating with a find on the same keychain (\(Bench.milliseconds(explainTimes.second))); target < 200 ms.")
print(
    "matrix of 10,000 items × 3 targets: median \(Bench.milliseconds(matrixTimes.first)) of \(runs) runs, "
        + "alternating with a find on the same keychain (\(Bench.milliseconds(matrixTimes.second))); target < 200 ms.")
for line in try LibraryBench.run(runs: runs, commandFindHit: results["find hit"]?[sizes[0]]) { print(line) }
for line in try CIBench.run(binary: binary, workdir: workdir, runs: runs, profilePath: profilePath) { print(line) }
for line in SyncBench.run(binary: binary, workdir: workdir, runs: runs, profilePath: profilePath) { print(line) }
