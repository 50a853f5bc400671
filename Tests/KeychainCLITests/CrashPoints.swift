import Foundation
import Testing

/// What a command did to the disk, in order: the writes, syncs, renames and unlinks `inject-fault
/// watch=` saw, across its threads and children, each with the file it acted on.
struct DiskTrace: CustomStringConvertible {
    struct Event: Equatable, CustomStringConvertible {
        /// 1-based: what `inject-fault kill=` takes.
        let index: Int
        let call: String
        let target: String
        var description: String { "#\(index) \(call) \(target)" }
        var isSync: Bool { call == "fdatasync" || call == "fsync" }
        var isRenameOrUnlink: Bool { ["rename", "renameat", "renameat2", "linkat", "unlink", "unlinkat"].contains(call) }
        /// A write to a pipe: the command reporting something (its standard output or error).
        var isReport: Bool { call == "write" && target.hasPrefix("pipe:") }
    }

    static let calls = "pwrite64,write,fdatasync,fsync,rename,renameat,renameat2,linkat,unlink,unlinkat,exit_group"

    let events: [Event]
    /// The keychain file the command changed.
    let keychain: String

    init(file: String, keychain: String) {
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        events = text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3, let index = Int(fields[0]) else { return nil }
            // What differs run to run is named alike: a file with no name yet (O_TMPFILE, shown as
            // "/#INODE (deleted)"), a pipe ("pipe:[INODE]"), a cloud store's staging file (its
            // random suffix, "UUID.new-" and 16 hex digits), a file being replaced whole (NewFile's
            // "PATH.creating-PID-RANDOM").
            let target = fields[2].replacingOccurrences(of: #"/#[0-9]+ \(deleted\)$"#, with: "/(unnamed)", options: .regularExpression)
                .replacingOccurrences(of: #"^pipe:\[[0-9]+\]$"#, with: "pipe:", options: .regularExpression)
                .replacingOccurrences(of: #"\.new-[0-9a-f]{16}"#, with: ".new-…", options: .regularExpression)
                .replacingOccurrences(of: #"\.creating-[0-9]+-[^/ ]+"#, with: ".creating-…", options: .regularExpression)
            return Event(index: index, call: fields[1], target: target)
        }
        self.keychain = keychain
    }

    var description: String { events.map(\.description).joined(separator: "\n") }

    /// The frames SQLite wrote to the keychain's write-ahead log.
    var logWrites: [Event] { events.filter { $0.call == "pwrite64" && $0.target == keychain + "-wal" } }

    /// The write that commits: the last frame written to the log (it carries the commit mark). A
    /// kill at it or before leaves the old state; a kill after it, the new one.
    var commit: Int { logWrites.last?.index ?? 0 }

    /// The moments worth a kill: the log's first, middle and last frame, the call after the commit,
    /// the first write of the checkpoint into the file, and the first and last rename, link or
    /// unlink, each with the call after it (between a rename and the sync of its folder).
    var moments: [Int] {
        let frames = logWrites.map(\.index)
        var chosen = [frames.first, frames.dropFirst().first, frames.isEmpty ? nil : frames[frames.count / 2], frames.last, commit + 1]
        chosen.append(events.first { $0.index > commit && $0.call == "pwrite64" && $0.target == keychain }?.index)
        let renames = events.filter(\.isRenameOrUnlink)
        for event in [renames.first, renames.last].compactMap({ $0 }) { chosen += [event.index, event.index + 1] }
        let last = events.last?.index ?? 0
        return Array(Set(chosen.compactMap { $0 }.filter { $0 >= 1 && $0 <= last })).sorted()
    }

    /// What a power cut could undo: everything after the commit that depends on it (a file renamed
    /// or removed, a report written, the exit) must come after a sync of the log or of the file.
    /// The events that break that rule.
    var unsyncedEffects: [Event] {
        guard commit > 0 else { return [] }
        let synced = events.first { $0.index > commit && $0.isSync && ($0.target == keychain + "-wal" || $0.target == keychain) }
        return events.filter { event in
            event.index > commit && (event.isRenameOrUnlink || event.isReport || event.call == "exit_group")
                && event.index < (synced?.index ?? Int.max)
        }
    }
}

extension Sandbox {
    /// Runs `keychainctl arguments` watched by `inject-fault` (see DiskTrace), killed with SIGKILL
    /// at watched call `killAt` when given, before that call runs.
    func watched(
        _ arguments: [String], killAt: Int? = nil, profile: String? = "app.plist", stdin: Data? = nil,
        environment: [String: String] = [:]
    ) -> (Run, DiskTrace) {
        let traceFile = folder + "/../" + URL(fileURLWithPath: folder).lastPathComponent + ".trace"
        defer { unlink(traceFile) }
        let settings = ["watch=" + DiskTrace.calls, "trace=" + traceFile] + (killAt.map { ["kill=\($0)"] } ?? [])
        let run = run(
            settings + [Self.binary] + arguments + (profile.map { ["--profile", "\(Self.profiles)/\($0)"] } ?? []), profile: nil,
            stdin: stdin, environment: environment, timeout: 120, executable: Self.injectFault)
        return (run, DiskTrace(file: traceFile, keychain: keychain))
    }

    /// Runs `keychainctl arguments` killed at `event` of a trace of the same command: it must die of
    /// SIGKILL, and at that very call (the same steps before it), not at a neighbour.
    @discardableResult
    func runKilled(_ arguments: [String], at event: DiskTrace.Event, stdin: Data? = nil, environment: [String: String] = [:]) -> Run {
        let (killed, seen) = watched(arguments, killAt: event.index, profile: nil, stdin: stdin, environment: environment)
        #expect(killed.signal == SIGKILL, "killed at \(event): \(killed.status) \(killed.stderr)")
        #expect(seen.events.last == event, "killed at \(seen.events.last.map(\.description) ?? "no call"), not \(event)")
        return killed
    }

    /// A copy of this sandbox's folder (keychain, key files, inputs) put back before each kill.
    func snapshot() throws -> String {
        let copy = folder + ".before"
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: folder, toPath: copy)
        return copy
    }

    func restore(_ snapshot: String) throws {
        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.copyItem(atPath: snapshot, toPath: folder)
    }
}

/// The crash-safety check of a command that changes the keychain: run once whole under watch,
/// then, from the same starting folder each time, killed at each of the trace's moments. After
/// every kill, `verify` is clean and `state` (the secrets read back, with the status of each read)
/// is exactly what `expected` says for that moment: by default the old state up to the commit's
/// write and the new one after it. The whole run must also leave nothing a power cut could undo
/// (DiskTrace.unsyncedEffects).
struct CrashCheck {
    /// Whether this process can see which file each call acts on: keychainctl makes itself
    /// undumpable, so its descriptors and memory are open to root alone.
    static let canWatch = getuid() == 0

    let sandbox: Sandbox
    let arguments: [String]
    var stdin: Data? = nil
    var environment: [String: String] = [:]
    /// The state the command changes, read back through the binary.
    let state: () -> String
    /// `verify` on the state left behind (its status).
    var verify: (Sandbox) -> Int32 = { $0.run(["verify"], profile: nil).status }
    /// More checks after each kill's state was read (such as the next run finishing the work).
    var afterKill: (DiskTrace.Event) -> Void = { _ in }
    /// Other folders the command changes (a cloud store), put back with the sandbox before each run.
    var alsoRestored: [Sandbox] = []

    /// Runs the check; returns the whole run's trace, the old state and the new one, for more
    /// assertions of the caller's.
    @discardableResult
    func run(
        expected: (_ moment: Int, _ trace: DiskTrace, _ old: String, _ new: String) -> String = { moment, trace, old, new in
            moment > trace.commit ? new : old
        }
    ) throws -> (trace: DiskTrace, old: String, new: String) {
        let before = try sandbox.snapshot()
        let others = try alsoRestored.map { ($0, try $0.snapshot()) }
        defer {
            try? FileManager.default.removeItem(atPath: before)
            for (_, copy) in others { try? FileManager.default.removeItem(atPath: copy) }
        }
        let old = state()
        // A run may order a few calls otherwise than another (SQLite's checkpoint has been seen on
        // either side of the key's rename under load). A moment is the event's call on its file, its
        // k-th such call: a kill that lands elsewhere is aimed again, from the same start, at where
        // that call came in the run just killed; when the whole run itself was the odd one (the call
        // never comes there in the runs killed after it), the whole run is traced again, at most
        // three times. Every kill that landed is checked in full.
        for round in 1...3 {
            // Reading the state opened the keychain (its -shm, its log): every run starts from the copy.
            try sandbox.restore(before)
            for (other, copy) in others { try other.restore(copy) }
            let (whole, trace) = sandbox.watched(arguments, profile: nil, stdin: stdin, environment: environment)
            #expect(whole.status == 0 && whole.signal == nil, "\(arguments): \(whole.status) \(whole.stderr)")
            let new = state()
            #expect(old != new, "the command changed nothing the check reads: \(new)")
            #expect(trace.commit > 0, "no write to \(sandbox.keychain)-wal seen:\n\(trace)")
            #expect(trace.unsyncedEffects.isEmpty, "done before the commit was on disk: \(trace.unsyncedEffects)\n\(trace)")
            var everyKillLanded = true
            for moment in trace.moments {
                let event = trace.events[moment - 1]
                let occurrence = trace.events.prefix(moment - 1).filter { $0.call == event.call && $0.target == event.target }.count
                var index = event.index
                var landed: DiskTrace.Event?
                var hit = false
                for _ in 0..<4 where !hit {
                    try sandbox.restore(before)
                    for (other, copy) in others { try other.restore(copy) }
                    let (killed, seen) = sandbox.watched(arguments, killAt: index, profile: nil, stdin: stdin, environment: environment)
                    landed = killed.signal == SIGKILL ? seen.events.last : nil
                    let same = seen.events.filter { $0.call == event.call && $0.target == event.target }
                    hit = landed != nil && landed?.call == event.call && landed?.target == event.target && same.count == occurrence + 1
                    if !hit { index = same.count > occurrence ? same[occurrence].index : index + 1 }
                }
                guard hit else {
                    everyKillLanded = false
                    if round < 3 { break }
                    Issue.record("killed at \(landed.map(\.description) ?? "no call"), not at \(event)")
                    continue
                }
                #expect(verify(sandbox) == 0, "verify after a kill at \(event)")
                let want = expected(moment, trace, old, new)
                #expect(state() == want, "killed at \(event) (commit #\(trace.commit))")
                afterKill(event)
            }
            if everyKillLanded || round == 3 { return (trace, old, new) }
        }
        preconditionFailure("the last round returns")
    }
}
