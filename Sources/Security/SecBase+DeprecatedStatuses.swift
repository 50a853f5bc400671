// The deprecated spellings SecBase.h still declares beside the statuses they name (its
// `__attribute__((deprecated("use …")))` entries, which Scripts/apple-statuses.py does not read).
// Not marked deprecated here, as none of the library's deprecated names is, so old code builds
// with -warnings-as-errors.

public let errSecDskFull: OSStatus = errSecDiskFull
public let errSecInvaldCRLAuthority: OSStatus = errSecInvalidCRLAuthority
public let errSecInvalidTupleCredendtials: OSStatus = errSecInvalidTupleCredentials
