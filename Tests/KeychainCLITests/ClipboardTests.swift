import Foundation
import KeychainTestSupport
import Testing

/// `get --clip` under a real X server (Xvfb), with xclip and with xsel: the secret reaches the
/// clipboard and never stdout or stderr, and the clipboard is cleared after --clip-seconds unless
/// something else was copied since. Without a desktop or a tool: exit 78, nothing copied.
@Suite(.serialized) struct ClipboardTests {
    static let available = ["/usr/bin/Xvfb", "/usr/bin/xclip", "/usr/bin/xsel"].allSatisfy {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// An X server on a display of its own, stopped when the test ends. Xvfb picks a display no
    /// other server holds (`-displayfd`: a concurrent job's on the same machine, say) and writes
    /// its number once it accepts connections.
    final class Display {
        let number: Int
        let process = Process()

        init() throws {
            let output = Pipe()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
            process.arguments = ["-displayfd", "1", "-nolisten", "tcp"]
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            final class Line: @unchecked Sendable { var text = "" }
            let line = Line()
            let read = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                while !line.text.hasSuffix("\n") {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    line.text += String(decoding: chunk, as: UTF8.self)
                }
                read.signal()
            }
            let answered = read.wait(timeout: .now() + 10) == .success
            guard answered, let number = Int(line.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw DisplayError(said: answered ? line.text : "nothing in 10 s")
            }
            self.number = number
        }

        struct DisplayError: Error, CustomStringConvertible {
            let said: String
            var description: String { "Xvfb -displayfd did not name a display: \(said.debugDescription)" }
        }

        deinit {
            // The clipboard tools' servers die with it.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// A folder of programs holding only `tool` (xclip or xsel) and what the clearer runs.
    static func bin(_ sandbox: Sandbox, tool: String) throws -> String {
        let bin = sandbox.folder + "/bin-\(tool)"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        for program in [tool, "sleep", "cut"] {
            try FileManager.default.createSymbolicLink(atPath: bin + "/" + program, withDestinationPath: "/usr/bin/" + program)
        }
        // sha256sum marks each comparison the clearer makes: the test waits for that event, not
        // for the machine to be quick.
        let marking = "#!/bin/sh\n/usr/bin/sha256sum \"$@\"\nstatus=$?\necho >> '\(comparedMarks(sandbox))'\nexit $status\n"
        try marking.write(toFile: bin + "/sha256sum", atomically: true, encoding: .utf8)
        chmod(bin + "/sha256sum", 0o755)
        return bin
    }

    /// The file the clearer's comparisons are marked in, a line each.
    static func comparedMarks(_ sandbox: Sandbox) -> String { sandbox.folder + "/compared" }

    /// How many comparisons the clearer has made.
    static func comparisons(_ sandbox: Sandbox) -> Int {
        ((try? String(contentsOfFile: comparedMarks(sandbox), encoding: .utf8)) ?? "").filter { $0 == "\n" }.count
    }

    @Test(.enabled(if: available, "machine: x-clipboard"), arguments: ["xclip", "xsel"])
    func theSecretGoesToTheClipboardAndIsClearedUnlessItChanged(tool: String) throws {
        let display = try Display()
        let sandbox = try Sandbox()
        let secret = "clip-secret-\(UUID().uuidString)"
        #expect(sandbox.run(["set", "clipped"], profile: nil, stdin: Data(secret.utf8)).status == 0)
        let environment = ["DISPLAY": ":\(display.number)", "PATH": try Self.bin(sandbox, tool: tool)]
        func paste() -> String {
            sandbox.run(
                ["-selection", "clipboard", "-out"], profile: nil, environment: ["DISPLAY": ":\(display.number)"], timeout: 10,
                executable: "/usr/bin/xclip"
            ).stdout
        }
        let copied = sandbox.run(["get", "clipped", "--clip", "--clip-seconds", "2"], profile: nil, environment: environment)
        #expect(copied.status == 0 && copied.stdout.isEmpty && !copied.stderr.contains(secret), "\(copied.stdout) \(copied.stderr)")
        #expect(paste() == secret)
        #expect(Deadline.waitUntil(8) { paste().isEmpty }, "cleared after 2 s")
        #expect(Deadline.waitUntil(8) { Self.comparisons(sandbox) == 1 })
        // Something else copied meanwhile stays: the secret is there when the other copy is made
        // (5 s leave it time on a loaded machine), and the clearer compares after it.
        #expect(sandbox.run(["get", "clipped", "--clip", "--clip-seconds", "5"], profile: nil, environment: environment).status == 0)
        #expect(paste() == secret)
        // xclip leaves a process serving the selection: started with every other descriptor closed
        // (Python's default), it holds none of the test's pipes.
        let copier = """
            import subprocess
            subprocess.run(["xclip", "-selection", "clipboard", "-in"], input=b"the user's own copy",
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            """
        let other = sandbox.run(
            ["-c", copier], profile: nil, environment: ["DISPLAY": ":\(display.number)"], timeout: 10, executable: "/usr/bin/python3")
        #expect(other.status == 0)
        #expect(Self.comparisons(sandbox) == 1, "the other copy came after the clearer's comparison: the check would prove nothing")
        #expect(Deadline.waitUntil(15) { Self.comparisons(sandbox) == 2 }, "the clearer compared")
        // A clear would follow the comparison at once, in the same shell.
        Thread.sleep(forTimeInterval: 1)
        #expect(paste() == "the user's own copy")
    }

    @Test func withoutADesktopOrAToolNothingIsCopied() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.run(["set", "clipped"], profile: nil, stdin: Data("s3cret-value".utf8)).status == 0)
        let noDisplay = sandbox.run(["get", "clipped", "--clip"], profile: nil, environment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
        #expect(noDisplay.status == 78 && noDisplay.stderr.contains("no clipboard") && noDisplay.stdout.isEmpty, "\(noDisplay.stderr)")
        let noTool = sandbox.run(["get", "clipped", "--clip"], profile: nil, environment: ["DISPLAY": ":1", "PATH": sandbox.folder])
        #expect(noTool.status == 78 && noTool.stderr.contains("xclip or xsel") && noTool.stdout.isEmpty, "\(noTool.stderr)")
        #expect(sandbox.run(["get", "clipped", "--clip-seconds", "5"], profile: nil).status == 64)
    }
}
