import Foundation
import FuzzTargets
import Testing

/// Every fuzz target's seeds (`Fixtures/Fuzz/TARGET`, crashers the fuzzers found included) and the
/// corpus earlier fuzzing grew (`.build/fuzz/corpus/TARGET`, when there is one), run through the
/// target in process, without sanitizers: a fix that breaks a property a seed once broke fails
/// here, in seconds, on every test run, before `make fuzz` builds anything.
@Suite struct FuzzSeedReplayTests {
    /// The inputs of `target`: its seeds, then at most `corpusLimit` corpus files.
    static func inputs(of target: FuzzTarget, corpusLimit: Int = 2_000) throws -> [String] {
        let seeds = Sandbox.packageRoot + "/Fixtures/Fuzz/" + target.rawValue
        let corpus = Sandbox.packageRoot + "/.build/fuzz/corpus/" + target.rawValue
        let seeded = try FileManager.default.contentsOfDirectory(atPath: seeds).sorted().map { seeds + "/" + $0 }
        let grown = ((try? FileManager.default.contentsOfDirectory(atPath: corpus)) ?? []).sorted().prefix(corpusLimit)
        return seeded + grown.map { corpus + "/" + $0 }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everySeedKeepsItsTargetsProperties(_ target: FuzzTarget) throws {
        let inputs = try Self.inputs(of: target)
        #expect(inputs.count >= 3, "\(target) has \(inputs.count) seeds")
        for path in inputs {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(throws: Never.self, "\(path)") { try target.run(bytes) }
        }
        // The empty input too, which every target must take.
        #expect(throws: Never.self) { try target.run([]) }
    }
}
