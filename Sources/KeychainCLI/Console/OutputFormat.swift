/// `--format`: text for people, JSON for programs.
enum OutputFormat: String, Sendable {
    case text
    case json
}
