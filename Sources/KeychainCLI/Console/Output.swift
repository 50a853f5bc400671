import KeychainCore

/// A command's output as it will be written: public text, and secrets (already base64, in guarded
/// memory) that go from guarded memory straight to the stream, never through an ordinary string.
struct Output {
    /// One stretch of output.
    enum Piece {
        case text(String)
        case secret(SecretBytes)
    }

    private var finished: [Piece] = []
    /// Public text not yet made a piece, as UTF-8 (writers such as JSON's append bytes).
    private var pending: [UInt8] = []

    init(_ text: String = "") { pending = Array(text.utf8) }

    /// Appends public text.
    mutating func append(_ text: String) { pending.append(contentsOf: text.utf8) }

    /// Appends public text given as UTF-8 (the caller makes sure it is valid).
    mutating func append(utf8 byte: UInt8) { pending.append(byte) }

    /// Appends secret bytes, written as they are.
    mutating func append(secret: SecretBytes) {
        if !pending.isEmpty { finished.append(.text(String(decoding: pending, as: UTF8.self))) }
        pending = []
        finished.append(.secret(secret))
    }

    /// Appends another output.
    mutating func append(_ other: Output) {
        for piece in other.pieces {
            switch piece {
            case .text(let text): append(text)
            case .secret(let secret): append(secret: secret)
            }
        }
    }

    /// Every piece, in order.
    var pieces: [Piece] { pending.isEmpty ? finished : finished + [.text(String(decoding: pending, as: UTF8.self))] }

    /// The text of an output that holds no secret (a precondition: secrets are never made into strings).
    var publicText: String {
        pieces.map { piece in
            guard case .text(let text) = piece else { preconditionFailure("a secret cannot become a string") }
            return text
        }.joined()
    }
}
