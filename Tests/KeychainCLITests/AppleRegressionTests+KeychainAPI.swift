import Foundation
import Testing

/// `secdxctests/KeychainAPITests.m`, `si-80-empty-data.c` and the no-data adds of
/// `secitemfunctionality.m`: what a SecItem call returns, translated into command lines.
extension AppleRegressionTests {
    /// The JSON object a run printed (its first element when it printed an array).
    static func object(_ run: Sandbox.Run) -> [String: Any] {
        let value = try? run.json()
        return (value as? [String: Any]) ?? ((value as? [Any])?.first as? [String: Any]) ?? [:]
    }

    /// `KeychainAPITests.m`, `testInetBinaryFields`: an internet password's notes, history and
    /// client fields are stored with its data, returned only when data is, and updated one at a
    /// time.
    @Test func keychainAPITestsInetBinaryFields() throws {
        let sandbox = try Sandbox()
        let file = "KeychainAPITests.m"
        let fields = [
            "binn": "OBVIOUS_NOTES_DATA", "bini": "OBVIOUS_HISTORY_DATA", "bin0": "OBVIOUS_CLIENT0_DATA", "bin1": "OBVIOUS_CLIENT1_DATA",
            "bin2": "OBVIOUS_CLIENT2_DATA", "bin3": "OBVIOUS_CLIENT3_DATA",
        ]
        var fieldOptions: [String] = []
        for (code, value) in fields {
            let path = sandbox.folder + "/" + code
            try Data(value.utf8).write(to: URL(fileURLWithPath: path))
            fieldOptions += ["--data-field", "\(code)=\(path)"]
        }
        let query = ["--class", "inet", "-a", "test-account"]
        let add = Self.expect(
            sandbox,
            ["add"] + query + ["--accessible", "ak", "--attr", "desc=desc", "--server", "server", "--return", "attributes"]
                + fieldOptions + ["--format", "json"], stdin: "asdf", "\(file):543")
        #expect(!Self.object(add).isEmpty, "\(file):545: some sort of result")
        for code in fields.keys { #expect(Self.object(add)[code] == nil, "\(file):547: \(code) not returned as an attribute from add") }
        let one = Self.expect(sandbox, ["find"] + query + ["--return", "attributes", "--format", "json"], "\(file):580")
        for code in fields.keys { #expect(Self.object(one)[code] == nil, "\(file):585-590: \(code) not an attribute (one)") }
        let all = Self.expect(sandbox, ["find"] + query + ["--return", "attributes", "--limit", "all", "--format", "json"], "\(file):593")
        #expect((try? all.json() as? [Any])?.count == 1, "\(file):597: an array of one")
        for code in fields.keys { #expect(Self.object(all)[code] == nil, "\(file):600-605: \(code) not an attribute (all)") }
        for (limit, line) in [("one", 608), ("all", 620)] {
            let both = Self.expect(
                sandbox, ["find"] + query + ["--return", "attributes,data", "--limit", limit, "--format", "json"], "\(file):\(line)")
            for (code, value) in fields {
                #expect(
                    Self.object(both)[code] as? String == Data(value.utf8).base64EncodedString(), "\(file):\(line + 4): \(code) as data")
            }
        }
        let password = Self.expect(sandbox, ["find"] + query + ["-w"], "\(file):634-639")
        #expect(password.stdout == "asdf", "\(file):644: the original password")
        let gone = sandbox.folder + "/gone"
        try Data("gone".utf8).write(to: URL(fileURLWithPath: gone))
        Self.expect(sandbox, ["update"] + query + ["--set-data-field", "bini=\(gone)"], "\(file):652")
        let updated = Self.expect(sandbox, ["find"] + query + ["--return", "attributes,data", "--format", "json"], "\(file):655")
        for (code, value) in fields {
            let expected = code == "bini" ? "gone" : value
            #expect(Self.object(updated)[code] as? String == Data(expected.utf8).base64EncodedString(), "\(file):659-664: \(code)")
        }
        #expect(Self.object(updated)["v_Data"] as? String == Data("asdf".utf8).base64EncodedString(), "the data stays")
    }

    /// `si-80-empty-data.c` and `secitemfunctionality.m` (`CheckItemAddDeleteNoData`): an item
    /// added with no data is found, and its result holds no data key.
    @Test func si80EmptyData() throws {
        let sandbox = try Sandbox()
        let file = "si-80-empty-data.c"
        let item = ["-a", "empty-data-account-test", "-s", "empty-data-svce-test"]
        Self.expect(sandbox, ["add", "--no-data"] + item, "\(file):26")
        let found = Self.expect(
            sandbox, ["find", "-s", "empty-data-svce-test", "--limit", "all", "--return", "data,attributes", "--format", "json"],
            "\(file):36")
        let rows = try #require(try found.json() as? [[String: Any]], "\(file):37: an array")
        #expect(rows.count == 1, "\(file):37: one result")
        #expect(rows.first?["v_Data"] == nil, "\(file):40: no data")
        #expect(rows.first?["svce"] as? String == "empty-data-svce-test", "\(file):41")
        #expect(rows.first?["acct"] as? String == "empty-data-account-test", "\(file):42")
        Self.expect(sandbox, ["delete", "-s", "empty-data-svce-test"], "\(file):50")

        let functionality = "secitemfunctionality.m"
        let noData = ["-a", "item-delete-me", "--accessible", "ck", "-g", "SKMME9E2Y8.com.example.shared"]
        Self.expect(sandbox, ["add", "--no-data"] + noData, "\(functionality):102")
        Self.expect(sandbox, ["delete"] + noData, "\(functionality):110")
    }

    /// `SecItemServer.c` (`query_update_applier`, `query_set_data`): an update's new data is checked
    /// for its type only, so empty data replaces a secret as any other does (SimpleKeychain's
    /// `testStoringDataItemUnderExistingKey` sets `Data()` over an item and expects success).
    @Test func anUpdateToEmptyDataReplacesTheSecret() throws {
        let sandbox = try Sandbox()
        let file = "SecItemServer.c"
        let item = ["-s", "empty-update", "-a", "alice"]
        Self.expect(sandbox, ["add"] + item, stdin: "s3cret", "\(file): add")
        let empty = sandbox.folder + "/empty"
        try Data().write(to: URL(fileURLWithPath: empty))
        Self.expect(sandbox, ["update"] + item + ["--set-data-file", empty], "\(file): query_set_data")
        let found = Self.expect(sandbox, ["find"] + item + ["--return", "data,attributes", "--format", "json"], "\(file): find")
        #expect(Self.object(found)["v_Data"] as? String == "", "\(file): the data is empty, not missing: \(found.stdout)")
        #expect(Self.expect(sandbox, ["find"] + item + ["-w"], "\(file): find -w").stdout.isEmpty)
        Self.expect(sandbox, ["update"] + item + ["--set-data-stdin"], stdin: "again", "\(file): and back")
        #expect(Self.expect(sandbox, ["find"] + item + ["-w"], "\(file): find -w").stdout == "again")
    }

    /// `KeychainAPITests.m`: an add with attributes only (`testBadTypeInParams`), an access control
    /// that is no access control, and the internal `clip` attribute anywhere
    /// (`testNotAllowedToPassInternalAttributes`), are errSecParam.
    @Test func keychainAPITestsParameters() throws {
        let sandbox = try Sandbox()
        let file = "KeychainAPITests.m"
        let label = ["-l", "testentry"]
        Self.expect(sandbox, ["add", "--no-data"] + label, "\(file):168")
        Self.expect(sandbox, ["delete"] + label, "\(file):169")
        Self.expect(
            sandbox, ["add", "--no-data"] + label + ["--attr", "accc=string, no SecAccessControlRef!"], status: 206, "\(file):173")
        Self.expect(sandbox, ["delete"] + label + ["--attr", "accc=string, no SecAccessControlRef!"], status: 206, "\(file):174")

        let item = ["-s", "AppClipTestService"]
        let clip = ["--attr", "clip=1"]
        Self.expect(sandbox, ["add"] + item + clip, stdin: "password", status: 206, "\(file):229")
        Self.expect(sandbox, ["find"] + item + clip, status: 206, "\(file):233")
        Self.expect(sandbox, ["update"] + item + clip + ["--set-service", "DifferentService"], status: 206, "\(file):237")
        Self.expect(sandbox, ["add"] + item, stdin: "password", "setup")
        Self.expect(sandbox, ["update"] + item + ["--set-attr", "clip=1"], status: 206, "\(file):241")
        Self.expect(sandbox, ["delete"] + item + clip, status: 206, "\(file):245")
    }

    /// `KeychainAPITests.m`, `testGenpReturnRef` and `testInetReturnRef` (iOS): a password has no
    /// object reference, so asking for one returns nothing, from an add and from a find.
    @Test func keychainAPITestsPasswordsReturnNoReference() throws {
        let sandbox = try Sandbox()
        let file = "KeychainAPITests.m"
        for (query, line) in [
            (["-a", "TestAccount", "-s", "TestService"], 270),
            (["--class", "inet", "-a", "TestAccount", "--server", "www.example.com"], 324),
        ] {
            let add = Self.expect(sandbox, ["add"] + query + ["--return", "ref"], stdin: "password", "\(file):\(line)")
            #expect(add.stdout.isEmpty, "\(file):\(line + 9): nil from SecItemAdd when asking for ref")
            let find = Self.expect(sandbox, ["find"] + query + ["--return", "ref"], "\(file):\(line + 15)")
            #expect(find.stdout.isEmpty, "\(file):\(line + 23): nil from SecItemCopyMatching when asking for ref")
            Self.expect(sandbox, ["delete"] + query, "\(file):\(line + 26)")
        }
    }

    /// `KeychainAPITests.m`: persistent references (`testSecItemAddAndCopyMatchingWithUUIDPersistentRefs`,
    /// `testSecItemCopyMatchingDoesNotReturnPersistRefs`, `testSecItemUpdateUpgradesPersistentReference`):
    /// a find returns the class-and-UUID reference and never the raw `persistref` column, the
    /// reference finds the item, and an update keeps it.
    @Test func keychainAPITestsPersistentReferences() throws {
        let sandbox = try Sandbox()
        let file = "KeychainAPITests.m"
        let item = ["-a", "TestUUIDPersistentRefAccount", "-s", "TestUUIDPersistentRefService"]
        let added = Self.expect(
            sandbox, ["add"] + item + ["--return", "attributes,persistent-ref", "--format", "json"], stdin: "uuid", "\(file):1137")
        #expect(!Self.object(added).isEmpty, "\(file):1139: a dictionary")
        let reference = try #require(Self.object(added)["v_PersistentRef"] as? String, "\(file):1280: a persistent reference")
        let found = Self.expect(sandbox, ["find"] + item + ["--return", "attributes,persistent-ref", "--format", "json"], "\(file):1146")
        #expect(Self.object(found)["persistref"] == nil, "\(file):1152: no raw persistref")
        #expect(Self.object(found)["v_PersistentRef"] as? String == reference, "\(file):1155")
        let bytes = try #require(Data(base64Encoded: reference))
        #expect(String(decoding: bytes.prefix(4), as: UTF8.self) == "genp", "\(file):1165: its class")
        let byReference = Self.expect(sandbox, ["find", "--persistent-ref", reference, "--format", "json"], "\(file):1173")
        #expect(Self.object(byReference)["acct"] as? String == "TestUUIDPersistentRefAccount", "\(file):1176")
        #expect(Self.object(byReference)["persistref"] == nil, "\(file):1179 and 1292: no raw persistref")

        Self.expect(sandbox, ["update"] + item + ["--set-service", "am_a_service", "--set-password", "updated uuid"], "\(file):2178")
        let moved = ["-a", "TestUUIDPersistentRefAccount", "-s", "am_a_service", "--return", "persistent-ref"]
        let first = Self.expect(sandbox, ["find"] + moved, "\(file):2186").stdout
        #expect(Data(base64Encoded: first.trimmingCharacters(in: .newlines))?.count == 20, "\(file):2190: 20 bytes")
        Self.expect(
            sandbox, ["update", "-s", "am_a_service", "--set-service", "service", "--set-password", "replaced uuid"], "\(file):2201")
        let second = Self.expect(sandbox, ["find", "-s", "service", "--return", "persistent-ref"], "\(file):2207").stdout
        #expect(second == first, "\(file):2212: the same persistent reference")
        #expect(first.trimmingCharacters(in: .newlines) == reference, "the add's reference, through both updates")
    }
}
