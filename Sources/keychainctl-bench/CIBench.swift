import Glibc
import KeychainCore

/// The CI commands' figures: a passphrase keychain after `unlock` against a key-file one, `exec`'s
/// overhead over `find -w`, `get` and git's credential helper against `find -w`, jsonl import throughput and memory, masking throughput, and rekey.
enum CIBench {
    static func run(binary: String, workdir: String, runs: Int, profilePath: String) throws -> [String] {
        var lines: [String] = []
        let folder = "\(workdir)/ci"
        let keyPath = "\(folder)/key"
        _ = Bench.prepareFolder(folder, keyPath: keyPath)
        let keyFileEnvironment = [
            "KEYCHAINCTL_KEYCHAIN=\(folder)/keyfile.db", "KEYCHAINCTL_KEY_FILE=\(keyPath)", "KEYCHAINCTL_PROFILE=\(profilePath)",
            "HOME=\(folder)", "PATH=/usr/bin:/bin",
        ]
        let passphrase = ["KEYCHAINCTL_KEYCHAIN=\(folder)/passphrase.db", "KEYCHAINCTL_PROFILE=\(profilePath)", "HOME=\(folder)"]
        let secretFile = "\(folder)/secret"
        Bench.write("bench-secret", to: secretFile)
        for (environment, creating) in [
            (keyFileEnvironment, ["init"]), (passphrase + ["KEYCHAINCTL_PASSPHRASE=bench passphrase"], ["init", "--kdf", "interactive"]),
        ] {
            guard ProcessRunner.run([binary] + creating, environment: environment).status == 0,
                ProcessRunner.run([binary, "add", "-s", "api", "-a", "ci", "--data-file", secretFile], environment: environment).status == 0
            else { fatalError("cannot make the CI bench keychains") }
        }
        let unlocked = ProcessRunner.run(
            [binary, "unlock", "--timeout", "30m", "--keyring", "user"],
            environment: passphrase + ["KEYCHAINCTL_PASSPHRASE=bench passphrase"])
        if unlocked.status == 0 {
            let (cached, keyFile) = ProcessRunner.alternatingMedians(
                runs: runs, (passphrase, { _ in [binary, "find", "-s", "api", "-a", "ci", "-w"] }),
                (keyFileEnvironment, { _ in [binary, "find", "-s", "api", "-a", "ci", "-w"] }))
            lines.append(
                "find -w on a passphrase keychain after unlock: \(Bench.milliseconds(cached)) against \(Bench.milliseconds(keyFile)) "
                    + "with a key file (\(ratio(cached, keyFile)), run alternately, \(runs) runs); target ≤ 1.5×.")
            _ = ProcessRunner.run([binary, "lock"], environment: passphrase)
        } else {
            lines.append("find after unlock: not measured (the kernel keyring is not available here: unlock exited \(unlocked.status)).")
        }
        let (exec, find) = ProcessRunner.alternatingMedians(
            runs: runs,
            (keyFileEnvironment, { _ in [binary, "exec", "--mask", "never", "--env", "T=service=api,account=ci", "--", "/bin/true"] }),
            (keyFileEnvironment, { _ in [binary, "find", "-s", "api", "-a", "ci", "-w"] }))
        lines.append(
            "exec --env T=… -- true (a child in a view of its own): \(Bench.milliseconds(exec)) against find -w's \(Bench.milliseconds(find)) "
                + "(+\(Bench.milliseconds(exec - find)), run alternately); target ≤ find -w + 1 ms.")

        let (get, findW) = ProcessRunner.alternatingMedians(
            runs: runs, (keyFileEnvironment, { _ in [binary, "get", "api", "ci"] }),
            (keyFileEnvironment, { _ in [binary, "find", "-s", "api", "-a", "ci", "-w"] }))
        lines.append(
            "get api ci: \(Bench.milliseconds(get)) against find -w's \(Bench.milliseconds(findW)) (\(ratio(get, findW)), run alternately); "
                + "target within 2%.")

        // git's credential helper, called as git calls it around a fetch: get, then store of the
        // credential that worked (a git before 2.46 sends it again every time).
        let helper = "\(folder)/git-credential-keychainctl"
        symlink(binary, helper)
        let getRequest = "\(folder)/git-get", storeRequest = "\(folder)/git-store"
        Bench.write("protocol=https\nhost=git.example.com\n", to: getRequest)
        Bench.write("protocol=https\nhost=git.example.com\nusername=ci\npassword=bench-secret\n", to: storeRequest)
        guard ProcessRunner.run([helper, "store"], environment: keyFileEnvironment, stdinPath: storeRequest).status == 0 else {
            fatalError("git-credential-keychainctl store failed")
        }
        let (helperGet, findForHelper) = ProcessRunner.alternatingMedians(
            runs: runs, stdin: (getRequest, "/dev/null"), (keyFileEnvironment, { _ in [helper, "get"] }),
            (keyFileEnvironment, { _ in [binary, "find", "-s", "api", "-a", "ci", "-w"] }))
        let (helperStore, add) = ProcessRunner.alternatingMedians(
            runs: runs, stdin: (storeRequest, "/dev/null"), (keyFileEnvironment, { _ in [helper, "store"] }),
            (keyFileEnvironment, { i in [binary, "add", "-s", "added-\(i)", "-a", "ci", "--data-file", secretFile] }))
        lines.append(
            "git-credential-keychainctl get: \(Bench.milliseconds(helperGet)) against find -w's \(Bench.milliseconds(findForHelper)) "
                + "(\(ratio(helperGet, findForHelper))); store of the same credential again: \(Bench.milliseconds(helperStore)) against "
                + "add's \(Bench.milliseconds(add)) (\(ratio(helperStore, add))), each run alternately; target ≤ 1.1× each.")

        // Masking: 128 MiB of text through exec --mask always -- cat.
        let big = "\(folder)/big.txt"
        let line = Array("the quick brown fox jumps over the lazy dog, bench-secre and bench-sec 0123456789\n".utf8)
        let fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var chunk: [UInt8] = []
        while chunk.count < 1 << 20 { chunk += line }
        for _ in 0..<128 { _ = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
        close(fd)
        let bytes = Double(128 * chunk.count)
        let masked = ProcessRunner.median(runs: 3, warmup: 1, environment: keyFileEnvironment) { _ in
            [binary, "exec", "--mask", "always", "--env", "T=service=api,account=ci", "--", "/bin/cat", big]
        }
        lines.append(
            "masking: \(Int(bytes / masked / 1e6)) MB/s through exec --mask always -- cat (128 MiB, median of 3); target ≥ 100 MB/s.")
        unlink(big)

        // import of 100,000 items from jsonl, then rekey of the same 100,000.
        let jsonl = "\(folder)/items.jsonl"
        let out = open(jsonl, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var text: [UInt8] = []
        for index in 0..<100_000 {
            let secret = Base64.encode(Array("secret-\(index)".utf8))
            text += Array(
                "{\"class\":\"genp\",\"svce\":\"import-\(index % 100)\",\"acct\":\"account-\(index)\",\"v_Data\":\"\(secret)\"}\n".utf8)
            if text.count > 1 << 20 {
                _ = text.withUnsafeBytes { write(out, $0.baseAddress, $0.count) }
                text = []
            }
        }
        _ = text.withUnsafeBytes { write(out, $0.baseAddress, $0.count) }
        close(out)
        let importEnvironment = [
            "KEYCHAINCTL_KEYCHAIN=\(folder)/import.db", "KEYCHAINCTL_KEY_FILE=\(keyPath)", "KEYCHAINCTL_PROFILE=\(profilePath)",
            "HOME=\(folder)",
        ]
        guard ProcessRunner.run([binary, "init"], environment: importEnvironment).status == 0 else { fatalError("init for import") }
        let imported = ProcessRunner.run([binary, "import", jsonl], environment: importEnvironment)
        guard imported.status == 0 else { fatalError("import exited \(imported.status)") }
        lines.append(
            "import of 100,000 items from jsonl: \(Bench.decimals(imported.seconds)) s, "
                + "\(Int(100_000 / imported.seconds)) items/s, peak memory \(imported.peakKilobytes / 1024) MB; targets ≥ 20,000 items/s, < 64 MB."
        )
        let secondKey = "\(folder)/second.key"
        _ = Bench.prepareFolder("\(folder)/second", keyPath: secondKey)
        let rekeyed = ProcessRunner.run([binary, "rekey", "--new-key-file", secondKey], environment: importEnvironment)
        guard rekeyed.status == 0 else { fatalError("rekey exited \(rekeyed.status)") }
        lines.append(
            "rekey of 100,000 items: \(Bench.decimals(rekeyed.seconds)) s, peak memory \(rekeyed.peakKilobytes / 1024) MB; target < 15 s.")
        return lines
    }

    private static func ratio(_ a: Double, _ b: Double) -> String { Bench.decimals(a / b) + "×" }

}
