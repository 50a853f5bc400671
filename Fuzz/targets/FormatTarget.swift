import KeychainCore
import KeychainTestSupport

/// libFuzzer target for what `import` and `exec` read: the first byte picks a dotenv file, a JSON
/// document whose items are mapped as import maps them, or output through the secret masker (cut
/// into chunks at the sizes the next bytes give, which must mask as a whole would).
func fuzzFormats(_ data: UnsafePointer<UInt8>, _ count: Int) throws(FuzzViolation) {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    guard let selector = bytes.first else { return }
    let rest = Array(bytes.dropFirst())
    switch selector % 3 {
    case 0:
        _ = try? rest.withUnsafeBytes { try DotEnv.parse($0, source: "fuzz") }
    case 1:
        rest.withUnsafeBytes { buffer in
            guard let value = try? JSONReader.parse(buffer) else { return }
            let elements: [JSONReader.Value]
            if case .array(let items) = value { elements = items } else { elements = [value] }
            for element in elements { _ = try? ItemJSON.importItem(element, in: buffer, origin: "fuzz") }
        }
    default:
        guard rest.count > 5 else { return }
        // A secret without a line break: a form holding one may be cut at a newline, as documented.
        let secret = SecretBytes(copying: rest.prefix(5).map { $0 == 0x0A || $0 == 0x0D ? 0x78 : $0 })
        let output = Array(rest.dropFirst(5))
        func masked(chunk: Int) -> [UInt8] { SecretMasker([("S", secret)]).masked(output, chunk: chunk) }
        // Chunking never changes the result: the masker holds back whatever a form could still match.
        let whole = masked(chunk: max(1, output.count))
        try require(masked(chunk: 1 + Int(selector % 7)) == whole, "chunking changed the masked output")
    }
    return
}
