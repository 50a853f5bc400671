import Foundation
import Testing

/// Documentation is code: every console transcript in README.md and docs/ is run, in a fresh
/// folder, and must print what it shows.
///
/// A transcript is a ```console block. A line starting with `$ ` is a command (a line ending in
/// `\` continues it on the next line); the lines after it, up to the next command, are what it
/// prints on stdout and stderr together. In the expected output, `[...]` stands for any text
/// within a line, and a line that is only `[...]` for any number of lines: the marked variable
/// parts (references, times, dates). The blocks of one file run in order in one shell, so a
/// guide's later commands see what its earlier ones made, and nothing else: the folder starts
/// empty but for a link to `Fixtures`, HOME is that folder, and no KEYCHAINCTL_ variable is set.
///
/// `KEYCHAINCTL_RECORD_DOCS=docs/GUIDE.md` (a comma list of files) writes what each command of
/// those files printed back into them; the variable parts then need marking again by hand.
@Suite struct DocumentationTests {
    /// The files whose transcripts run.
    static let files: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: Sandbox.packageRoot + "/docs")) ?? []
        return (["README.md", "CONTRIBUTING.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 })
            .filter { FileManager.default.fileExists(atPath: Sandbox.packageRoot + "/" + $0) }
    }()

    /// One command of a transcript and what it prints.
    struct Step {
        let command: String
        let expected: [String]
        /// Where the expected lines are in the file (0-based), for recording.
        let lines: Range<Int>
    }

    /// The steps of every ```console block of `text`, in order.
    static func steps(_ text: String) -> [Step] {
        let lines = text.components(separatedBy: "\n")
        var steps: [Step] = []
        var index = 0
        var inConsole = false
        var command: [String]? = nil
        var commandEnd = 0
        var expected: [String] = []
        func close(at end: Int) {
            if let command { steps.append(Step(command: command.joined(separator: "\n"), expected: expected, lines: commandEnd..<end)) }
            command = nil
            expected = []
        }
        while index < lines.count {
            let line = lines[index]
            if line.hasPrefix("```") {
                if inConsole { close(at: index) }
                inConsole = line == "```console"
                index += 1
                continue
            }
            guard inConsole else {
                index += 1
                continue
            }
            if line.hasPrefix("$ ") {
                close(at: index)
                var words = [String(line.dropFirst(2))]
                while words.last?.hasSuffix("\\") == true, index + 1 < lines.count {
                    index += 1
                    words.append(lines[index])
                }
                command = words
                commandEnd = index + 1
            } else {
                expected.append(line)
            }
            index += 1
        }
        return steps
    }

    /// Whether `actual` lines are what `expected` shows, `[...]` matching anything.
    static func matches(_ actual: ArraySlice<String>, _ expected: ArraySlice<String>) -> Bool {
        guard let first = expected.first else { return actual.isEmpty }
        if first == "[...]" {
            return (actual.startIndex...actual.endIndex).contains { matches(actual[$0...], expected.dropFirst()) }
        }
        guard let line = actual.first, lineMatches(line, first) else { return false }
        return matches(actual.dropFirst(), expected.dropFirst())
    }

    /// Whether one line matches its expected form, each `[...]` standing for any text.
    static func lineMatches(_ line: String, _ pattern: String) -> Bool {
        let parts = pattern.components(separatedBy: "[...]")
        guard parts.count > 1 else { return line == pattern }
        guard line.hasPrefix(parts[0]) else { return false }
        var rest = line.dropFirst(parts[0].count)
        for part in parts.dropFirst().dropLast() {
            guard let range = rest.range(of: part) else { return false }
            rest = rest[range.upperBound...]
        }
        return rest.count >= parts.last!.count && rest.hasSuffix(parts.last!)
    }

    /// Runs `steps` in one shell in a fresh folder; what each printed, as lines.
    static func run(_ steps: [Step]) throws -> [[String]] {
        let sandbox = try Sandbox(initialize: false)
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.folder + "/Fixtures", withDestinationPath: Sandbox.packageRoot + "/Fixtures")
        let marker = "\u{1}step\u{1}"
        var script = "exec 2>&1\nunset KEYCHAINCTL_KEYCHAIN KEYCHAINCTL_KEY_FILE\ncd \"$HOME\"\n"
        for step in steps { script += "printf '\\n%s\\n' '\(marker)'\n\(step.command)\n" }
        let binaries = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path
        let environment = ["HOME": sandbox.folder, "PATH": "\(binaries):/usr/bin:/bin", "TMPDIR": sandbox.folder, "LANG": "C.UTF-8"]
        // In a session keyring of its own: a key the guide caches with `unlock` is the guide's,
        // out of reach of the suites running beside it (and of their `lock --all`).
        let run = sandbox.run(
            ["SESSION", "/bin/bash", "-c", script], profile: nil, environment: environment, timeout: 600, executable: Sandbox.denyKeyring)
        let chunks = run.stdout.components(separatedBy: "\n\(marker)\n").dropFirst()
        return chunks.map { chunk in
            var lines = chunk.components(separatedBy: "\n")
            while lines.last == "" { lines.removeLast() }
            return lines
        }
    }

    @Test(arguments: files) func everyTranscriptPrintsWhatItShows(_ file: String) throws {
        let path = Sandbox.packageRoot + "/" + file
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let steps = Self.steps(text)
        guard !steps.isEmpty else { return }
        let outputs = try Self.run(steps)
        #expect(outputs.count == steps.count, "\(file): the shell stopped after \(outputs.count) of \(steps.count) commands")
        let recording = (ProcessInfo.processInfo.environment["KEYCHAINCTL_RECORD_DOCS"] ?? "").split(separator: ",").contains { $0 == file }
        var recorded = text.components(separatedBy: "\n")
        for (step, actual) in zip(steps, outputs).reversed() {
            var expected = step.expected[...]
            while expected.last == "" { expected.removeLast() }
            if recording {
                recorded.replaceSubrange(step.lines, with: actual)
                continue
            }
            #expect(
                Self.matches(actual[...], expected),
                "\(file): $ \(step.command)\n--- shows\n\(expected.joined(separator: "\n"))\n--- printed\n\(actual.joined(separator: "\n"))"
            )
        }
        if recording {
            try recorded.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    /// README's Quick start runs verbatim, as a new user pastes it into a shell with the binary on
    /// the PATH, and ends by printing what README says it prints.
    @Test func theQuickStartRunsVerbatim() throws {
        let readme = try String(contentsOfFile: Sandbox.packageRoot + "/README.md", encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Quick start\n").dropFirst().first)
        let blocks = section.components(separatedBy: "```")
        // blocks: prose, "sh\n<script>", prose, "\n<expected>", …
        let script = try #require(blocks.dropFirst().first.map { String($0.dropFirst("sh\n".count)) })
        let expected = try #require(blocks.dropFirst(3).first).split(separator: "\n").map(String.init)
        let sandbox = try Sandbox(initialize: false)
        let binaries = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path
        let run = sandbox.run(
            ["SESSION", "/bin/bash", "-e", "-c", "unset KEYCHAINCTL_KEYCHAIN KEYCHAINCTL_KEY_FILE\n" + script], profile: nil,
            environment: ["HOME": sandbox.folder, "PATH": "\(binaries):/usr/bin:/bin", "TMPDIR": sandbox.folder], timeout: 120,
            executable: Sandbox.denyKeyring)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast()
        #expect(Self.matches(lines.suffix(expected.count), expected[...]), "printed:\n\(run.stdout)")
        #expect(run.stdout.contains("hunter2") && run.stderr.isEmpty, "\(run.stderr)")
    }

    /// `make demo`'s script runs to its end on a fresh machine (no profile of the user's), each step
    /// ending as it says.
    @Test func theDemoRuns() throws {
        let sandbox = try Sandbox(initialize: false)
        let run = sandbox.run(
            [Sandbox.packageRoot + "/Scripts/demo.sh", Sandbox.binary], profile: nil,
            environment: ["HOME": sandbox.folder, "TMPDIR": sandbox.folder], timeout: 300, executable: "/bin/bash")
        #expect(run.status == 0, "\(run.stderr)")
        for line in ["(exit 0; 11 bytes, no trailing newline)", "backed up 1 item to", "token: [keychainctl:API_TOKEN]"] {
            #expect(run.stdout.contains(line), "the demo did not print \(line)")
        }
    }

    /// The repository stands alone: no page, comment or test points at a specification or research
    /// notes outside it, and every relative link in the documentation names a file that exists.
    @Test func nothingPointsOutsideTheRepository() throws {
        let root = Sandbox.packageRoot
        // Spelled in pieces, so that this file does not match itself.
        let forbidden = ["../" + "shared", "SEMANTICS" + " §", "research" + " §", "research" + " `", "CLI" + ".md", "-anchors" + ".md"]
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        var offenders: [String] = []
        while let path = enumerator.nextObject() as? String {
            if path.hasPrefix(".build") || path.hasPrefix(".git") { enumerator.skipDescendants() }
            guard path.hasSuffix(".swift") || path.hasSuffix(".md") || path.hasSuffix(".sh") || path == "Makefile" else { continue }
            guard let text = try? String(contentsOfFile: root + "/" + path, encoding: .utf8) else { continue }
            offenders += forbidden.filter { text.contains($0) }.map { "\(path): \($0)" }
        }
        #expect(offenders.isEmpty, "\(offenders)")
        for file in Self.files + ["CHANGELOG.md"] {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            let folder = URL(fileURLWithPath: root + "/" + file).deletingLastPathComponent()
            for link in text.components(separatedBy: "](").dropFirst().compactMap({ $0.split(separator: ")").first }) {
                let target = String(link.split(separator: "#", omittingEmptySubsequences: false).first ?? "")
                guard !target.isEmpty, !target.contains("://") else { continue }
                #expect(
                    FileManager.default.fileExists(atPath: folder.appendingPathComponent(target).path),
                    "\(file) links to \(target), which is not in the repository")
            }
        }
    }

    /// CONTRIBUTING.md's map names every folder of the sources and the tests, so it cannot fall
    /// behind the layout.
    @Test func theArchitectureMapNamesEveryFolder() throws {
        let map = try String(contentsOfFile: Sandbox.packageRoot + "/CONTRIBUTING.md", encoding: .utf8)
        for parent in ["Sources", "Sources/KeychainCLI", "Sources/KeychainCore", "Tests"] {
            for folder in try FileManager.default.contentsOfDirectory(atPath: Sandbox.packageRoot + "/" + parent) {
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: Sandbox.packageRoot + "/\(parent)/\(folder)", isDirectory: &isFolder),
                    isFolder.boolValue
                else { continue }
                #expect(map.contains(folder), "CONTRIBUTING.md's map lacks \(parent)/\(folder)")
            }
        }
    }

    /// The runner itself: a wrong transcript fails, a marked variable part does not.
    @Test func aWrongTranscriptFails() throws {
        let steps = Self.steps("```console\n$ echo one; echo two\none\nthree\n$ echo ref=Z2Vu\nref=[...]\n```\n")
        let outputs = try Self.run(steps)
        #expect(!Self.matches(outputs[0][...], steps[0].expected[...]))
        #expect(Self.matches(outputs[1][...], steps[1].expected[...]))
        #expect(Self.matches(["a", "b", "c"], ["a", "[...]"]) && !Self.matches(["a", "b"], ["b", "[...]"]))
    }
}
