import ArgumentParser
import KeychainCore

/// `--format`: text for people, JSON for programs.
enum OutputFormat: String, ExpressibleByArgument, Sendable {
    case text
    case json
}

extension Platform: ExpressibleByArgument {}
