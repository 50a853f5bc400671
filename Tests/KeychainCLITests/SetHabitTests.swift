import Foundation
import Testing

/// Habits from other tools that must not lose or leak a secret: `set NAME VALUE` (the
/// `security -w` and `secret-tool` way) and names that are not UTF-8, which Swift would have
/// converted so that two names become one item.
@Suite struct SetHabitTests {
    /// In cron or CI (no terminal, nothing on standard input) the word after NAME is most likely
    /// the secret: it is stored nowhere, printed nowhere, and the form shown stores the secret.
    @Test func aSecretGivenAsTheSecondWordIsNeitherStoredNorPrinted() throws {
        let sandbox = try Sandbox()
        let token = "ghp_R3alT0kenValue123"
        let habit = sandbox.run(["set", "gh", token])
        #expect(habit.status == 206, "\(habit.stderr)")
        #expect(!habit.stderr.contains(token) && !habit.stdout.contains(token), "the token was printed: \(habit.stderr)")
        #expect(habit.stderr.contains("printf %s \"$SECRET\" | keychainctl set gh"), "\(habit.stderr)")
        #expect(sandbox.run(["find", "-s", "gh"]).status == 44, "something was stored under gh")
        // The form the message shows, followed with the secret in SECRET.
        let followed = sandbox.run(
            ["-c", "printf %s \"$SECRET\" | \"$0\" set gh --profile \"$1\"", Sandbox.binary, Sandbox.profiles + "/app.plist"],
            profile: nil, environment: ["SECRET": token], executable: "/bin/sh")
        #expect(followed.status == 0, "\(followed.stderr)")
        #expect(sandbox.run(["get", "gh"]).stdout == token)
        #expect(!sandbox.run(["ls"]).stdout.contains(token), "the token became an account")
    }

    /// Without ACCOUNT the message is as before: the name and the way to store an empty secret.
    @Test func anEmptySecretWithoutAnAccountSaysHowToStoreOne() throws {
        let sandbox = try Sandbox()
        let empty = sandbox.run(["set", "gh"])
        #expect(empty.status == 206 && empty.stderr.contains("--data-file /dev/null"), "\(empty.stderr)")
        #expect(sandbox.run(["set", "gh", "--data-file", "/dev/null"]).status == 0)
        #expect(sandbox.run(["get", "gh"]).status == 0)
    }

    /// `set $'bad\xffname'` and `set $'bad\xfename'` were one item (both read as `bad\u{FFFD}name`),
    /// the second replacing the first's secret. Now every command refuses such a name, as find
    /// refuses such a --service, before anything is written.
    @Test func aNameThatIsNotUTF8IsRefusedNotConverted() throws {
        let sandbox = try Sandbox()
        let script = """
            kc() { "$KC" "$@" --profile "$PROFILE"; }
            printf first | kc set "$(printf 'bad\\377name')"; echo "set=$?"
            printf second | kc set "$(printf 'bad\\376name')"; echo "set2=$?"
            printf x | kc set ok "$(printf 'acc\\377')"; echo "account=$?"
            kc get "$(printf 'bad\\377name')"; echo "get=$?"
            kc rm "$(printf 'bad\\377name')"; echo "rm=$?"
            kc ls "$(printf 'bad\\377')"; echo "ls=$?"
            kc find -s "$(printf 'bad\\377name')"; echo "find=$?"
            """
        let run = sandbox.run(
            ["-c", script], profile: nil, environment: ["KC": Sandbox.binary, "PROFILE": Sandbox.profiles + "/app.plist"],
            executable: "/bin/sh")
        for line in ["set=206", "set2=206", "account=206", "get=206", "rm=206", "ls=206", "find=206"] {
            #expect(run.stdout.contains(line), "\(line) expected: \(run.stdout) \(run.stderr)")
        }
        #expect(run.stderr.contains("NAME is not valid UTF-8"), "\(run.stderr)")
        #expect(run.stderr.contains("ACCOUNT is not valid UTF-8"), "\(run.stderr)")
        #expect(!run.stderr.contains("\u{FFFD}"), "a converted name was shown")
        #expect(sandbox.run(["find", "--limit", "all"]).status == 44, "something was stored")
    }
}
