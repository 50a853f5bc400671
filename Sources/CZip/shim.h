// zlib's minizip (Debian libminizip-dev): reading an .ipa in place. A C library, linked statically
// in release builds: it adds no Swift conformance records and runs nothing at start-up, so a call
// that reads no archive pays nothing for it (ZIPFoundation would bring Foundation: CHANGELOG.md).
#include <minizip/unzip.h>
