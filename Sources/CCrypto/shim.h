// OpenSSL's libcrypto (Debian libssl-dev): CMS for signed provisioning profiles; X.509
// certificates, keys in every format and PKCS#12 for the cert, keys and idnt classes. A C library
// has no Swift conformance records, so linking it costs a find nothing (Foundation-based Swift
// packages cost 7%: CHANGELOG.md).
//
// RC2 (legacy PKCS#12 files) lives only in the low-level API, which OpenSSL 3 marks deprecated:
// its providers moved it to the loadable legacy module, which a static executable cannot load.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/cms.h>
#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/rsa.h>
#include <openssl/rc2.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/param_build.h>
#include <openssl/params.h>

// Selections that are expressions, which Swift does not import as constants.
static const int keychainctl_pkey_keypair = EVP_PKEY_KEYPAIR;
static const int keychainctl_pkey_public_key = EVP_PKEY_PUBLIC_KEY;

// OpenSSL's typed stacks are macros Swift cannot call: PKCS#12's safes and bags, counted, read
// and freed here.
static inline int keychainctl_stack_count(const void *stack) { return OPENSSL_sk_num((const OPENSSL_STACK *)stack); }
static inline void *keychainctl_stack_at(const void *stack, int index) {
    return OPENSSL_sk_value((const OPENSSL_STACK *)stack, index);
}
static inline void keychainctl_free_safes(STACK_OF(PKCS7) *safes) { sk_PKCS7_pop_free(safes, PKCS7_free); }
static inline void keychainctl_free_bags(STACK_OF(PKCS12_SAFEBAG) *bags) { sk_PKCS12_SAFEBAG_pop_free(bags, PKCS12_SAFEBAG_free); }

// A PKCS#7 EncryptedData's algorithm and ciphertext (a union member Swift cannot reach); 0 when
// `p7` is not one or lacks either.
static inline int keychainctl_encrypted_content(const PKCS7 *p7, const X509_ALGOR **algorithm, const ASN1_OCTET_STRING **data) {
    if (OBJ_obj2nid(p7->type) != NID_pkcs7_encrypted || p7->d.encrypted == NULL || p7->d.encrypted->enc_data == NULL) return 0;
    *algorithm = p7->d.encrypted->enc_data->algorithm;
    *data = p7->d.encrypted->enc_data->enc_data;
    return *algorithm != NULL && *data != NULL;
}

// A decrypted safe's bags (PKCS12_SAFEBAGS has an ASN.1 item but no d2i function).
static inline STACK_OF(PKCS12_SAFEBAG) *keychainctl_d2i_safebags(const unsigned char **in, long length) {
    return (STACK_OF(PKCS12_SAFEBAG) *)ASN1_item_d2i(NULL, in, length, ASN1_ITEM_rptr(PKCS12_SAFEBAGS));
}
