import Glibc
import KeychainCore
import KeychainPlatform

/// Sync's figures: a sync that pushes 10,000 changed items, the sync that pulls them on a
/// second device, and a sync with nothing to do on a keychain of 100,000 synchronizable items.
enum SyncBench {
    static func run(binary: String, workdir: String, runs: Int, profilePath: String) -> [String] {
        let folder = "\(workdir)/sync"
        let keyPath = "\(folder)/key"
        _ = Bench.prepareFolder(folder, keyPath: keyPath)
        let accountKey = "\(folder)/account.key"
        let common = ["KEYCHAINCTL_KEY_FILE=\(keyPath)", "KEYCHAINCTL_PROFILE=\(profilePath)", "HOME=\(folder)"]
        func device(_ name: String) -> [String] { common + ["KEYCHAINCTL_KEYCHAIN=\(folder)/\(name).db"] }
        func must(_ arguments: [String], _ environment: [String]) -> ProcessRunner.Measurement {
            let measured = ProcessRunner.run([binary] + arguments, environment: environment)
            if measured.status != 0 { fatalError("\(arguments.joined(separator: " ")) exited \(measured.status)") }
            return measured
        }
        _ = must(["cloud", "init", "\(folder)/cloud", "--generate-account-key-file", accountKey], common)
        _ = must(["cloud", "init", "\(folder)/big-cloud", "--account-key-file", accountKey], common)
        let sync = { (cloud: String) in ["sync", "--cloud", "\(folder)/\(cloud)", "--account-key-file", accountKey] }
        for name in ["a", "b", "big"] { _ = must(["init"], device(name)) }

        _ = must(["import", items(10_000, in: folder)], device("a"))
        let floor = fileCreationFloor(in: "\(folder)/floor", count: 10_000)
        let pushed = must(sync("cloud"), device("a"))
        let pulled = must(sync("cloud"), device("b"))
        var lines = [
            "sync pushing 10,000 changed items: \(Bench.decimals(pushed.seconds)) s, peak memory \(pushed.peakKilobytes / 1024) MB; "
                + "pulling them on a second device: \(Bench.decimals(pulled.seconds)) s, \(pulled.peakKilobytes / 1024) MB; target < 2 s. "
                + "The file system's part, 10,000 record files written and renamed as a push writes them, just before: "
                + "\(Bench.decimals(floor)) s."
        ]
        _ = must(["import", items(100_000, in: folder)], device("big"))
        let first = must(sync("big-cloud"), device("big"))
        let quiet = ProcessRunner.median(runs: min(runs, 11), warmup: 1, environment: device("big")) { _ in [binary] + sync("big-cloud") }
        lines.append(
            "sync with nothing to do, 100,000 synchronizable items: \(Bench.milliseconds(quiet)) (median of \(min(runs, 11)) runs; "
                + "the first sync uploading them took \(Bench.decimals(first.seconds)) s); target < 300 ms.")
        return lines
    }

    /// Seconds to do what a push asks of the file system, without the keychain: `count` new files of
    /// a record's size in a new folder, written, flushed with one `syncfs`, renamed into place, and
    /// the folder synced (`CloudStore.write`). A floor for the push, and a witness of the disk's
    /// state at the moment: some file systems (ext4 without a journal) slow every new file for a
    /// while after many were deleted. The files stay: deleting them would slow the push that follows.
    private static func fileCreationFloor(in directory: String, count: Int) -> Double {
        mkdir(directory, 0o700)
        let record = [UInt8](repeating: 0x5A, count: 260)  // a sealed record of one of `items`' passwords
        let clock = Bench.Stopwatch()
        for index in 0..<count {
            let fd = open("\(directory)/\(index).new", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { fatalError("cannot create a file in \(directory)") }
            _ = record.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        _ = FileSync.fileSystem(of: folder)
        fsync(folder)
        for index in 0..<count { rename("\(directory)/\(index).new", "\(directory)/\(index)") }
        fsync(folder)
        close(folder)
        return clock.seconds
    }

    /// A jsonl file of `count` synchronizable passwords; returns its path.
    private static func items(_ count: Int, in folder: String) -> String {
        let path = "\(folder)/items-\(count).jsonl"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var text: [UInt8] = []
        for index in 0..<count {
            let secret = Base64.encode(Array("secret-\(index)".utf8))
            text += Array("{\"svce\":\"sync-\(index % 100)\",\"acct\":\"account-\(index)\",\"sync\":true,\"v_Data\":\"\(secret)\"}\n".utf8)
            if text.count > 1 << 20 {
                _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                text = []
            }
        }
        _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        return path
    }
}
