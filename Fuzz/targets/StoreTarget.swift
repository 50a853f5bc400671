import KeychainCore
import KeychainFoundation

/// Fuzz target: what a sync reads from a cloud store and from its own sync state, the first byte
/// picking which. A store's marker is read before anything is authenticated (any host can write
/// it); a head, a record and a sync state are read once they opened under their key, so any
/// holder of it can write them. Each must parse or be refused: no crash, no hang, no runaway
/// allocation; what parses must encode back to what parses the same.
func fuzzStore(_ data: UnsafePointer<UInt8>, _ count: Int) throws(FuzzViolation) {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    guard let selector = bytes.first else { return }
    let rest = Array(bytes.dropFirst())
    switch selector % 4 {
    case 0:
        guard let marker = CloudMarker(parsing: rest) else { return }
        try require(CloudMarker(parsing: marker.bytes)?.bytes == marker.bytes, "a marker that does not parse back")
        _ = marker.open(with: storeFuzzKey)
    case 1:
        guard let head = CloudHead.parse(rest, epoch: 1) else { return }
        try require(CloudHead.parse(head.plain, epoch: 1) == head, "a head that does not parse back")
    case 2:
        guard let state = SyncState(encoded: rest) else { return }
        try require(SyncState(encoded: state.encoded) == state, "a sync state that does not parse back")
    default:
        _ = rest.withUnsafeBytes { CloudRecord.parse($0, uuid: .zero) }
    }
}

/// The account key the marker is opened with: a fixed one, so a seed sealed with it opens.
let storeFuzzKey = SecretBytes(copying: [UInt8](repeating: 7, count: 32))
