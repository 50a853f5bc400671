import Foundation

/// The all-or-nothing tests' loop step: start a command, kill it with SIGKILL part-way, wait for it.
package enum KillMidway {
    /// Runs `executable arguments` with `environment`, sends SIGKILL after `delay` microseconds,
    /// and waits for it to end. Returns whether the kill landed (the process died of the signal
    /// rather than finishing first): the caller then checks that nothing was left half-done.
    @discardableResult
    package static func run(_ executable: String, _ arguments: [String], environment: [String: String], after delay: UInt32)
        throws -> Bool
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        usleep(delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal
    }

    /// A delay spread log-uniformly between `low` and `high` microseconds: a quiet machine finishes
    /// a change in milliseconds, a loaded one in hundreds of them, and either must see kills land.
    package static func logUniform(_ low: Double, _ high: Double) -> UInt32 {
        UInt32(exp(Double.random(in: log(low)...log(high))))
    }
}

/// Waiting for a condition instead of sleeping a fixed time.
package enum Deadline {
    /// Polls `condition` every `interval` seconds until it holds or `seconds` have passed; whether it held.
    package static func waitUntil(_ seconds: Double, interval: Double = 0.05, _ condition: () throws -> Bool) rethrows -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: interval)
        }
        return try condition()
    }
}
