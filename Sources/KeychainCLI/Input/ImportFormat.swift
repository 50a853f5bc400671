/// What `import` reads: items as JSON or JSON lines (what export writes), dotenv variables, or a
/// PKCS#12 file.
enum ImportFormat: String { case json, jsonl, dotenv, pkcs12 }
