import Foundation
import KeychainFoundation
import KeychainTestSupport
import Testing

/// The storeys CONTRIBUTING.md draws, kept: each folder of a module (a room) uses only the types of
/// rooms on lower storeys, so no two rooms depend on each other and a feature cannot tie the
/// foundation to itself. A type's room is the folder that declares it; a use is its name in code
/// (comments and string literals left out).
@Suite struct ArchitectureTests {
    /// The engine's modules, ground floor first: the compiler keeps them apart, this test the rooms
    /// inside and across them.
    static let engine = ["KeychainFoundation", "KeychainFormats", "KeychainCore"]

    /// The engine's rooms, ground floor first.
    static let core: [[String]] = [
        ["Support", "Errors"],
        ["Model"],
        ["Crypto", "OpenSSL"],
        ["Keys", "Readers"],
        ["Certificates", "Bundles"],
        ["Store", "Query", "Cache", "Profiles"],
        ["Keychain"],
        ["Configuration", "Debugging", "Device", "Lifecycle", "Sync", "Transfer"],
    ]

    /// KeychainCLI's rooms, ground floor first.
    static let cli: [[String]] = [
        ["Console"],
        ["Options"],
        ["Input", "Output"],
        ["Context"],
        ["Exec"],
        ["Sync"],
        ["Commands"],
    ]

    /// The folders (rooms) of `modules`.
    static func rooms(of modules: [String]) throws -> [String] {
        try modules.flatMap { module in
            try FileManager.default.contentsOfDirectory(atPath: PackagePaths.root + "/Sources/" + module).filter { !$0.hasSuffix(".swift") }
        }
    }

    /// A source file: its room, its path from `Sources/`, its code (`code(_:)`).
    typealias Source = (room: String, path: String, code: String)

    /// Every source file of `modules`.
    static func sources(of modules: [String]) throws -> [Source] {
        var files: [Source] = []
        for module in modules {
            let root = PackagePaths.root + "/Sources/" + module
            for path in FileManager.default.enumerator(atPath: root)?.compactMap({ $0 as? String }) ?? [] where path.hasSuffix(".swift") {
                let room = String(path.split(separator: "/")[0])
                let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
                files.append((room, module + "/" + path, Self.code(text)))
            }
        }
        return files
    }

    /// Each use of a type of another room in `modules`: (from room, to room, type, file).
    static func uses(in modules: [String]) throws -> [(from: String, to: String, type: String, file: String)] {
        try uses(among: sources(of: modules))
    }

    /// Each use, among `files`, of a type another room declares, or of a method or property another
    /// room adds to a type in an `extension` (`Keychain.isLocked`, written `isLocked(…)` inside
    /// another extension of Keychain, or `.isLocked` anywhere): (from room, to room, name, file).
    static func uses(among files: [Source]) -> [(from: String, to: String, type: String, file: String)] {
        // Types declared at the top level of each room (a name declared in two rooms is ambiguous and skipped).
        let declaration = try! NSRegularExpression(
            pattern:
                #"^(?:(?:package|public|private|fileprivate|internal|final|indirect) )*(?:struct|enum|class|protocol|actor|typealias) ([A-Z][A-Za-z0-9_]*)"#,
            options: .anchorsMatchLines)
        var owners: [String: Set<String>] = [:]
        // Members added by extensions, visible outside their file: name → (rooms, extended types).
        var members: [String: (rooms: Set<String>, types: Set<String>)] = [:]
        let member = try! NSRegularExpression(
            pattern:
                #"^    (?:@[A-Za-z]+ )*(?:(?:package|public|internal|static|mutating|final|override) )*(?:func|var) ([a-z][A-Za-z0-9_]{3,})"#
        )
        for file in files {
            for match in declaration.matches(in: file.code, range: NSRange(file.code.startIndex..., in: file.code)) {
                owners[String(file.code[Range(match.range(at: 1), in: file.code)!]), default: []].insert(file.room)
            }
            var extended: String?
            for line in file.code.split(separator: "\n", omittingEmptySubsequences: false) {
                if let first = line.first, first != " ", first != "}" {
                    extended = line.hasPrefix("extension ") ? String(line.dropFirst(10).prefix { $0.isLetter || $0.isNumber }) : nil
                }
                let text = String(line)
                guard let match = member.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { continue }
                let name = String(text[Range(match.range(at: 1), in: text)!])
                // A member of a type's own body, or of an extension, counts toward ambiguity either way.
                members[name, default: ([], [])].rooms.insert(file.room)
                if let extended { members[name, default: ([], [])].types.insert(extended) }
            }
        }
        let word = try! NSRegularExpression(pattern: #"\b[A-Z][A-Za-z0-9_]*\b"#)
        // A member used through a receiver (`keychain.isLocked`, `Keychain.open`, `self.isLocked`),
        // or bare: `receiver.` is group 1, the name group 2, a call's parenthesis group 3.
        let call = try! NSRegularExpression(pattern: #"(?:\b([A-Za-z_][A-Za-z0-9_]*)\.|(?<![.\w]))([a-z][A-Za-z0-9_]{3,})\b(\()?"#)
        var found: [(String, String, String, String)] = []
        for file in files {
            let names = Set(
                word.matches(in: file.code, range: NSRange(file.code.startIndex..., in: file.code)).map {
                    String(file.code[Range($0.range, in: file.code)!])
                })
            for name in names.sorted() {
                guard let rooms = owners[name], rooms.count == 1, let owner = rooms.first, owner != file.room else { continue }
                found.append((file.room, owner, name, file.path))
            }
            var seen = Set<String>()
            for match in call.matches(in: file.code, range: NSRange(file.code.startIndex..., in: file.code)) {
                let name = String(file.code[Range(match.range(at: 2), in: file.code)!])
                guard let declared = members[name], declared.rooms.count == 1, let owner = declared.rooms.first, owner != file.room,
                    declared.types.count == 1, let type = declared.types.first, !seen.contains(name)
                else { continue }
                let receiver = Range(match.range(at: 1), in: file.code).map { String(file.code[$0]) }
                let called = match.range(at: 3).location != NSNotFound
                let inExtension = file.code.contains("extension \(type) ")
                // Through a value named after the type, the type itself, or self in an extension of
                // it; bare, only a call inside an extension of the type (implicit self). Other
                // receivers are left out: `.count` of an array is not `KeychainStore.count`.
                let counted =
                    switch receiver {
                    case nil: called && inExtension
                    case "self": inExtension
                    case let receiver?: receiver.lowercased() == type.lowercased()
                    }
                guard counted else { continue }
                seen.insert(name)
                found.append((file.room, owner, type + "." + name, file.path))
            }
        }
        return found
    }

    /// `text` without comments and string literals' contents.
    static func code(_ text: String) -> String {
        var out = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var kept = ""
            var inString = false
            var previous: Character = " "
            for character in line {
                if !inString, character == "/", previous == "/" {
                    kept.removeLast()
                    break
                }
                if character == "\"", previous != "\\" { inString.toggle() }
                if !inString || character == "\"" { kept.append(character) }
                previous = character
            }
            out += kept + "\n"
        }
        return out
    }

    @Test(arguments: [(engine, core), (["KeychainCLI"], cli)])
    func everyRoomUsesOnlyRoomsBelowIt(_ modules: [String], _ storeys: [[String]]) throws {
        let level = Dictionary(uniqueKeysWithValues: storeys.enumerated().flatMap { index, rooms in rooms.map { ($0, index) } })
        let rooms = try Self.rooms(of: modules)
        #expect(rooms.sorted() == level.keys.sorted(), "\(modules)' folders and the storeys differ: \(rooms.sorted())")
        let uses = try Self.uses(in: modules)
        #expect(uses.count > 100, "the scan found only \(uses.count) uses across rooms")
        for use in uses {
            guard let from = level[use.from], let to = level[use.to] else { continue }
            #expect(to < from, "\(use.file) (\(use.from)) uses \(use.type) of \(use.to), which is not below it")
        }
    }

    /// The scan sees uses across rooms and leaves comments and strings out (so the test above has
    /// something to check, and can fail).
    @Test func theScanSeesUsesAcrossRooms() throws {
        let uses = try Self.uses(in: Self.engine)
        #expect(uses.contains { $0.from == "Keychain" && $0.to == "Model" && $0.type == "Schema" })
        // A method one room adds to a type, called from another room's extension of the type with
        // an implicit self, or through a value: both are uses of the room that declares it.
        let files: [Source] = [
            ("Keychain", "Keychain+Add.swift", "extension Keychain {\n    func add() {\n        if isLocked(row) {}\n    }\n}\n"),
            ("Device", "Keychain+Device.swift", "extension Keychain {\n    func isLocked(_ row: Row) -> Bool { true }\n}\n"),
            ("Sync", "Push.swift", "struct Push {\n    func run() { _ = keychain.isLocked(row) }\n}\n"),
            ("Store", "Row.swift", "struct Row {\n    func locked() { _ = isLocked }\n}\n"),
        ]
        let found = Self.uses(among: files).map { "\($0.from)→\($0.to) \($0.type)" }.sorted()
        #expect(found == ["Device→Store Row", "Keychain→Device Keychain.isLocked", "Sync→Device Keychain.isLocked"], "\(found)")
        // In the engine: the Device room's changes read the state through the Keychain room's method.
        #expect(
            uses.contains { $0.from == "Device" && $0.to == "Keychain" && $0.type == "Keychain.storedDevice" },
            "\(uses.filter { $0.type.contains(".") }.prefix(5))")
        #expect(Self.code("let a = \"Keychain\" // Sync\nSchema.x") == "let a = \"\" \nSchema.x\n")
    }

    /// CONTRIBUTING.md's map lists each module's rooms from the top storey down, and every room of
    /// the module.
    @Test(arguments: engine.map { ($0, core) } + [("KeychainCLI", cli)])
    func theMapShowsTheStoreys(_ module: String, _ storeys: [[String]]) throws {
        let map = try String(contentsOfFile: PackagePaths.root + "/CONTRIBUTING.md", encoding: .utf8)
        // A module's block: its name and what it is on one line, then its rooms, indented.
        let section = try #require(map.components(separatedBy: "\n\(module) ").dropFirst().first, "the map has no \(module) block")
        let lines = section.components(separatedBy: "\n").dropFirst().prefix { $0.hasPrefix(" ") || $0.isEmpty }
        let listed = lines.compactMap { line -> String? in
            let word = line.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? ""
            return word.hasSuffix("/") ? String(word.dropLast()) : nil
        }
        let rooms = try Self.rooms(of: [module])
        #expect(listed.sorted() == rooms.sorted(), "CONTRIBUTING.md lists \(module)'s rooms as \(listed)")
        let level = Dictionary(uniqueKeysWithValues: storeys.enumerated().flatMap { index, rooms in rooms.map { ($0, index) } })
        let levels = listed.compactMap { level[$0] }
        #expect(levels == levels.sorted(by: >), "CONTRIBUTING.md lists \(module)'s rooms out of storey order: \(listed)")
    }

    /// The command-line framework knows nothing of keychains: it imports nothing but the C library
    /// and TextEscaping, and no word of its sources names a keychain or Apple; a program describes
    /// itself to it (`ProgramSpec`), so it could serve another program as is. TextEscaping, which
    /// the framework and the engine share, imports nothing at all and knows no keychain either.
    @Test func theCommandLineFrameworkImportsNothingOfTheKeychain() throws {
        for (module, allowed, least) in [("CommandLineKit", ["import Glibc", "import TextEscaping"], 8), ("TextEscaping", [], 3)] {
            let root = PackagePaths.root + "/Sources/" + module
            let files = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasSuffix(".swift") }
            #expect(files.count >= least, "\(files)")
            for file in files {
                let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
                let imports = text.split(separator: "\n").filter { $0.hasPrefix("import ") || $0.contains(" import ") }
                #expect(imports.allSatisfy { allowed.contains(String($0)) }, "\(module)/\(file) imports \(imports)")
                for word in ["keychain", "secitem", "apple"] {
                    #expect(!text.lowercased().contains(word), "\(module)/\(file) mentions \(word)")
                }
            }
        }
        let manifest = try String(contentsOfFile: PackagePaths.root + "/Package.swift", encoding: .utf8)
        #expect(
            manifest.contains(".target(name: \"CommandLineKit\", dependencies: [\"TextEscaping\"])"),
            "CommandLineKit depends on TextEscaping alone")
        #expect(manifest.contains(".target(name: \"TextEscaping\")"), "TextEscaping depends on nothing")
    }

    /// The platform's C shims (the kernel keyring, spawning, the terminal, prctl and signalfd,
    /// syncfs) are imported by KeychainPlatform alone, which wraps each in a small Swift type: a
    /// port to another system changes that module and nothing above it.
    @Test func onlyThePlatformModuleCallsThePlatform() throws {
        let shims = ["CKeyring", "CSpawn", "CTerminal", "CProcess", "CFileSync"]
        var importers: [String: Set<String>] = [:]
        for folder in ["Sources", "Tests", "Fuzz"] {
            let root = PackagePaths.root + "/" + folder
            for path in FileManager.default.enumerator(atPath: root)?.compactMap({ $0 as? String }) ?? [] where path.hasSuffix(".swift") {
                let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
                for shim in shims where text.contains("import \(shim)\n") {
                    importers[shim, default: []].insert(folder + "/" + path.split(separator: "/")[0])
                }
            }
        }
        for shim in shims {
            #expect(importers[shim] == ["Sources/KeychainPlatform"], "\(shim) is imported by \(importers[shim] ?? [])")
        }
    }

    /// Small rooms: no source file over 450 lines, but a generated table (which says so on its
    /// first line).
    /// A request, and an update's changes, carry their attributes in one list of inputs (a word to
    /// parse, or a value the library bound): no layer can hold a word and a value for one attribute
    /// in two lists, and the library never speaks in words it must first write out. A second list
    /// of attributes by code fails here.
    @Test func requestsCarryTheirAttributesInOneList() {
        let lists = { (value: Any) in
            Mirror(reflecting: value).children.filter { String(describing: type(of: $0.value)).contains("code: String") }.map(\.label)
        }
        #expect(lists(ItemRequest()) == ["attributes"])
        #expect(lists(ChangeRequest()) == ["attributes"])
        #expect(String(describing: type(of: ItemRequest().attributes)) == "Array<(code: String, input: AttributeInput)>")
    }

    @Test func noSourceFileIsOver450Lines() throws {
        let root = PackagePaths.root + "/Sources"
        var checked = 0
        for path in FileManager.default.enumerator(atPath: root)?.compactMap({ $0 as? String }) ?? [] where path.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
            checked += 1
            guard !text.hasPrefix("// Generated by ") else { continue }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(lines <= 451, "\(path) has \(lines) lines")
        }
        #expect(checked > 200)
    }

    /// No test changes the process environment: the suites run in parallel threads of one
    /// process, where one's `setenv` races with every other's `getenv`. Tests bind
    /// `Environment.$overlay` instead (CONTRIBUTING.md).
    @Test func noTestChangesTheProcessEnvironment() throws {
        let root = PackagePaths.root + "/Tests"
        // Spelled in pieces, so that this file does not match itself.
        let calls = ["set" + "env(", "unset" + "env(", "put" + "env(", "clear" + "env("]
        var offenders: [String] = []
        var checked = 0
        for path in FileManager.default.enumerator(atPath: root)?.compactMap({ $0 as? String }) ?? [] where path.hasSuffix(".swift") {
            let code = Self.code(try String(contentsOfFile: root + "/" + path, encoding: .utf8))
            checked += 1
            offenders += calls.filter { code.contains($0) }.map { "\(path): \($0)" }
        }
        #expect(checked > 50)
        #expect(offenders.isEmpty, "\(offenders)")
    }
}
