// OpenSSL's libcrypto (Debian libssl-dev): CMS for signed provisioning profiles; X.509
// certificates, keys in every format and PKCS#12 for the cert, keys and idnt classes. A C library
// has no Swift conformance records, so linking it costs a find nothing (Foundation-based Swift
// packages cost 7%: README, Speed).
//
// RC2 (legacy PKCS#12 files) lives only in the low-level API, which OpenSSL 3 marks deprecated:
// its providers moved it to the loadable legacy module, which a static executable cannot load.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/cms.h>
#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/rc2.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/param_build.h>
#include <openssl/params.h>

// Selections that are expressions, which Swift does not import as constants.
static const int keychainctl_pkey_keypair = EVP_PKEY_KEYPAIR;
static const int keychainctl_pkey_public_key = EVP_PKEY_PUBLIC_KEY;
