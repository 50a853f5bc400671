import Glibc
import KeychainCore
import KeychainPlatform

/// exec's command on a terminal of its own (docs/GUIDE.md, `exec`).
///
/// When keychainctl's standard streams are a terminal, the command gets a new pseudo-terminal in
/// their place, in a session of its own (`cspawn_options.terminal`), and keychainctl relays between
/// the two: what is typed (the caller's terminal in raw mode while keychainctl has its foreground,
/// so the command's terminal interprets every key, ^C and ^Z included), what the command prints
/// (masked under `--mask always`), the window size, and its stops (the command stops, then
/// keychainctl, so the shell's job control works as without exec). The command never holds the
/// caller's terminal: nothing it starts can read what is typed after exec, and the caller's
/// terminal device is covered in its own view of the files.
final class TerminalRelay {
    /// The standard descriptors that are the caller's terminal, on which the command gets its own.
    let carried: [Int32]
    /// The caller's terminal device, covered in the command's view (nil: it has no name).
    let callerDevice: String?
    let master: Int32
    /// Closed in this process once the command started.
    private var slave: Int32
    /// Where the command's terminal output goes: the caller's terminal, by the first of stdout,
    /// stderr and stdin that is it.
    let output: Int32
    /// Whether what is typed goes to the command: stdin is the caller's terminal.
    private let relaysInput: Bool
    private var inputOpen: Bool
    /// Typed bytes the command's terminal did not take yet.
    private var pending: [UInt8] = []
    /// SIGCONT, read here: a job continued in the foreground takes the terminal back.
    private var continued: Int32
    private var previousMask = sigset_t()

    /// The relay for keychainctl's standard streams, or nil when none is a terminal. Throws when a
    /// pseudo-terminal cannot be made (the command would otherwise hold the caller's terminal).
    static func forStandardStreams() throws -> TerminalRelay? {
        var carried: [Int32] = []
        var device: UInt?
        for fd: Int32 in 0...2 where isatty(fd) == 1 {
            var status = stat()
            guard fstat(fd, &status) == 0 else { continue }
            // A stream on another terminal than the first stays as it is.
            if device == nil { device = UInt(status.st_rdev) }
            if UInt(status.st_rdev) == device { carried.append(fd) }
        }
        guard let first = carried.first else { return nil }
        guard let pty = PseudoTerminal.open(like: first) else {
            throw ConfigurationError("cannot make a terminal for the command: \(SystemError.text(errno)); nothing was run.")
        }
        return try TerminalRelay(carried: carried, pty: pty)
    }

    private init(carried: [Int32], pty: (master: Int32, slave: Int32)) throws {
        self.carried = carried
        master = pty.master
        slave = pty.slave
        callerDevice = Self.name(of: carried[0])
        output = carried.contains(1) ? 1 : carried.contains(2) ? 2 : 0
        relaysInput = carried.contains(0)
        inputOpen = relaysInput
        var watched = sigset_t()
        sigemptyset(&watched)
        sigaddset(&watched, SIGCONT)
        sigprocmask(SIG_BLOCK, &watched, &previousMask)
        continued = ProcessGuard.signalDescriptor(&watched)
        guard continued >= 0 else {
            let error = errno
            close()
            throw ConfigurationError("cannot watch signals: \(SystemError.text(error)); nothing was run.")
        }
    }

    /// The slave on every carried descriptor: the command's `dups`.
    var dups: [(from: Int32, to: Int32)] { carried.map { (slave, $0) } }

    /// The slave, for `cspawn_options.terminal`.
    var terminal: Int32 { slave }

    /// Once the command started: the slave is the command's alone, and the caller's terminal goes raw.
    func started() {
        Glibc.close(slave)
        slave = -1
        takeTerminal()
    }

    /// Raw mode and the window size again, when keychainctl has the caller's terminal's foreground.
    private func takeTerminal() {
        PseudoTerminal.copyWindow(from: carried[0], to: master)
        // Raw only from the foreground (cterminal_raw checks): a background job leaves it as it is.
        if relaysInput { _ = PseudoTerminal.raw(0) }
    }

    /// The window size changed (SIGWINCH): the command's terminal gets it, and signals its foreground.
    func resize() { PseudoTerminal.copyWindow(from: carried[0], to: master) }

    /// A signal the caller's terminal sent keychainctl (^C where stdin is not the terminal, a
    /// hangup): to the command's terminal's foreground group; false when it has none.
    func signalForeground(_ number: Int32) -> Bool {
        let group = tcgetpgrp(master)
        return group > 0 && kill(-group, number) == 0
    }

    /// Continues the command's terminal's foreground group (after a hang-up or termination sent
    /// to it, which a stopped process would otherwise hold until continued).
    func continueForeground() { _ = signalForeground(SIGCONT) }

    /// The command stopped (^Z on its terminal): the caller's terminal is given back and
    /// keychainctl stops too, as the command would have stopped without exec; once continued,
    /// the terminal is taken again (when in the foreground).
    func suspend() {
        PseudoTerminal.restore()
        kill(getpid(), SIGSTOP)
        takeTerminal()
    }

    /// What the loop polls for the relay, after the command's output: stdin while typing goes
    /// through (only in the foreground: a background read would stop keychainctl), the command's
    /// terminal while typed bytes wait, and SIGCONT.
    func pollEntries(commandRunning: Bool) -> [pollfd] {
        var entries = [pollfd(fd: continued, events: Int16(POLLIN), revents: 0)]
        let reading = commandRunning && inputOpen && pending.isEmpty && PseudoTerminal.isForeground(0)
        entries.append(pollfd(fd: reading ? 0 : -1, events: Int16(POLLIN), revents: 0))
        entries.append(pollfd(fd: pending.isEmpty ? -1 : master, events: Int16(POLLOUT), revents: 0))
        return entries
    }

    /// Acts on what `pollEntries` returned.
    func service(_ entries: ArraySlice<pollfd>) {
        let entries = Array(entries)
        if entries[0].revents != 0 {
            while ProcessGuard.nextSignal(from: continued) != nil {}
            takeTerminal()
        }
        if entries[1].revents != 0 { readInput() }
        if entries[2].revents != 0 { writeInput() }
    }

    private func readInput() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let got = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if got < 0, errno == EINTR || errno == EAGAIN { return }
        guard got > 0 else {
            // The caller's terminal hung up: nothing more to type.
            inputOpen = false
            return
        }
        pending += buffer.prefix(got)
        writeInput()
    }

    private func writeInput() {
        guard !pending.isEmpty else { return }
        let wrote = pending.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        if wrote > 0 {
            pending.removeFirst(wrote)
        } else if wrote < 0, errno != EAGAIN, errno != EINTR {
            // The command's terminal is gone (the command ended): what was typed for it goes nowhere.
            pending = []
            inputOpen = false
        }
    }

    /// Gives the caller's terminal back as it was; the master is the output stream's to close.
    func close() {
        PseudoTerminal.restore()
        if slave >= 0 { Glibc.close(slave) }
        slave = -1
        guard continued >= 0 else { return }
        Glibc.close(continued)
        continued = -1
        sigprocmask(SIG_SETMASK, &previousMask, nil)
    }

    private static func name(of fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard ttyname_r(fd, &buffer, buffer.count) == 0 else { return nil }
        return String(cString: buffer)
    }
}
