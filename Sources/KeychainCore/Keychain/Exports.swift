@_exported import KeychainFormats
// What imports KeychainCore (the command line, the bench, the fuzzers and tests) sees the storeys
// below it too, as one engine.
@_exported import KeychainFoundation
