// OpenSSL's libcrypto (Debian libssl-dev): CMS for signed provisioning profiles. A C library has
// no Swift conformance records, so linking it costs a find nothing (Foundation-based Swift
// packages cost 7%: README, Speed).
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/objects.h>
