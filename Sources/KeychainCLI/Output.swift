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
    private var pending = ""

    init(_ text: String = "") { pending = text }

    /// Appends public text.
    mutating func append(_ text: String) { pending += text }

    /// Appends secret bytes, written as they are.
    mutating func append(secret: SecretBytes) {
        if !pending.isEmpty { finished.append(.text(pending)) }
        pending = ""
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
    var pieces: [Piece] { pending.isEmpty ? finished : finished + [.text(pending)] }

    /// The text of an output that holds no secret (a precondition: secrets are never made into strings).
    var publicText: String {
        pieces.map { piece in
            guard case .text(let text) = piece else { preconditionFailure("a secret cannot become a string") }
            return text
        }.joined()
    }
}
