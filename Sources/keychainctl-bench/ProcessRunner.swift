import Glibc
import KeychainFoundation

/// Runs a command as a child process and measures it: wall time, peak memory (ru_maxrss) and page
/// faults.
enum ProcessRunner {
    struct Measurement {
        let seconds: Double
        let peakKilobytes: Int
        /// Pages the process touched first (minor and major faults): at start-up, mostly code.
        let pageFaults: Int
        let status: Int32
    }

    /// Spawns `arguments` with `environment`, stdin from /dev/null (or `stdinPath`), stdout and
    /// stderr to /dev/null, and waits.
    static func run(_ arguments: [String], environment: [String], stdinPath: String = "/dev/null", stderrPath: String = "/dev/null")
        -> Measurement
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        let clock = Bench.Stopwatch()
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, nil, argv, envp) == 0 else {
            fatalError("cannot run \(arguments[0])")
        }
        var status: Int32 = 0
        var usage = rusage()
        wait4(pid, &status, 0, &usage)
        return Measurement(
            seconds: clock.seconds, peakKilobytes: usage.ru_maxrss, pageFaults: usage.ru_minflt + usage.ru_majflt,
            status: (status >> 8) & 0xFF)
    }

    /// The median time of `runs` runs of `command(i)`, after `warmup` unmeasured ones; every run
    /// must exit 0 (or `expected`).
    static func median(runs: Int, warmup: Int = 3, expected: Int32 = 0, environment: [String], _ command: (Int) -> [String])
        -> Double
    {
        for index in 0..<warmup { _ = run(command(index), environment: environment) }
        var times: [Double] = []
        for index in warmup..<(warmup + runs) {
            let measured = run(command(index), environment: environment)
            if measured.status != expected {
                fatalError("\(command(index).joined(separator: " ")) exited \(measured.status), expected \(expected)")
            }
            times.append(measured.seconds)
        }
        times.sort()
        return times[times.count / 2]
    }

    /// Medians of two commands run alternately, so that both see the same machine: the way to
    /// compare two cases on a noisy host.
    static func alternatingMedians(
        runs: Int, expected: (first: Int32, second: Int32) = (0, 0), stdin: (first: String, second: String) = ("/dev/null", "/dev/null"),
        _ first: (environment: [String], command: (Int) -> [String]), _ second: (environment: [String], command: (Int) -> [String])
    ) -> (first: Double, second: Double) {
        var times: ([Double], [Double]) = ([], [])
        for index in 0..<(runs + 3) {
            for (slot, side) in [first, second].enumerated() {
                let measured = run(side.command(index), environment: side.environment, stdinPath: slot == 0 ? stdin.first : stdin.second)
                let status = slot == 0 ? expected.first : expected.second
                if measured.status != status {
                    fatalError("\(side.command(index).joined(separator: " ")) exited \(measured.status), expected \(status)")
                }
                if index >= 3 {
                    if slot == 0 { times.0.append(measured.seconds) } else { times.1.append(measured.seconds) }
                }
            }
        }
        return (times.0.sorted()[runs / 2], times.1.sorted()[runs / 2])
    }

    /// Instructions executed by `arguments` as `valgrind --tool=callgrind` counts them: repeatable
    /// where milliseconds are not. `nil` without valgrind. The program runs as a copy without its
    /// debug information, which valgrind's reader refuses in the static binary (the instructions
    /// executed are the same).
    static func instructions(_ arguments: [String], environment: [String], scratch: String) -> Int? {
        let valgrind = "/usr/bin/valgrind"
        guard access(valgrind, X_OK) == 0 else { return nil }
        var arguments = arguments
        let stripped = "\(scratch)/\(arguments[0].split(separator: "/").last ?? "program").nodebug"
        if access("/usr/bin/objcopy", X_OK) == 0,
            run(["/usr/bin/objcopy", "--strip-debug", arguments[0], stripped], environment: []).status == 0
        {
            arguments[0] = stripped
        }
        let log = "\(scratch)/callgrind.log"
        _ = run(
            [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null"] + arguments, environment: environment, stderrPath: log)
        guard let text = FileText.read(log), let line = text.split(separator: "\n").first(where: { $0.contains("refs:") }) else {
            return nil
        }
        return Int(line.split(separator: ":").last!.filter(\.isNumber))
    }

    /// The first line `program argument` prints (run by the shell), or `nil`.
    static func firstLine(_ program: String, _ argument: String) -> String? {
        let quoted = "'" + program.replacingBytes("'", with: "'\\''") + "' " + argument
        guard let pipe = popen(quoted, "r") else { return nil }
        defer { pclose(pipe) }
        var buffer = [CChar](repeating: 0, count: 512)
        guard fgets(&buffer, Int32(buffer.count), pipe) != nil else { return nil }
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return line.hasSuffix("\n") ? String(line.dropLast()) : line
    }
}

/// A small text file read whole.
enum FileText {
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = Glibc.read(fd, &chunk, chunk.count)
            if got <= 0 { break }
            bytes += chunk[0..<got]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
