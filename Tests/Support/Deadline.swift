import Foundation

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
