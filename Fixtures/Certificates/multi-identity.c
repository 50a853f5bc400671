/* Writes a PKCS#12 holding two identities (each a certificate and its private key, paired by a
 * localKeyID) and one more certificate: openssl's CLI puts at most one key in a file.
 * Usage: multi-identity OUT PASS CERT1 KEY1 CERT2 KEY2 EXTRA-CERT   (PEM files) */
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <stdio.h>
#include <string.h>

static void *load(const char *path, int key) {
    FILE *file = fopen(path, "r");
    if (!file) { perror(path); return NULL; }
    void *object = key ? (void *)PEM_read_PrivateKey(file, NULL, NULL, NULL) : (void *)PEM_read_X509(file, NULL, NULL, NULL);
    fclose(file);
    return object;
}

int main(int argc, char **argv) {
    if (argc != 8) { fprintf(stderr, "usage: %s OUT PASS CERT1 KEY1 CERT2 KEY2 EXTRA\n", argv[0]); return 64; }
    const char *pass = argv[2];
    STACK_OF(PKCS12_SAFEBAG) *certs = NULL, *keys = NULL;
    STACK_OF(PKCS7) *safes = NULL;
    for (int pair = 0; pair < 2; pair++) {
        X509 *cert = load(argv[3 + 2 * pair], 0);
        EVP_PKEY *key = load(argv[4 + 2 * pair], 1);
        if (!cert || !key) return 1;
        unsigned char id[1] = { (unsigned char)(pair + 1) };
        PKCS12_SAFEBAG *bag = PKCS12_add_cert(&certs, cert);
        if (!bag || !PKCS12_add_localkeyid(bag, id, 1)) return 1;
        bag = PKCS12_add_key(&keys, key, 0, PKCS12_DEFAULT_ITER, NID_aes_256_cbc, pass);
        if (!bag || !PKCS12_add_localkeyid(bag, id, 1)) return 1;
    }
    X509 *extra = load(argv[7], 0);
    if (!extra || !PKCS12_add_cert(&certs, extra)) return 1;
    if (!PKCS12_add_safe(&safes, certs, NID_aes_256_cbc, PKCS12_DEFAULT_ITER, pass)) return 1;
    if (!PKCS12_add_safe(&safes, keys, -1, 0, NULL)) return 1;
    PKCS12 *p12 = PKCS12_add_safes(safes, 0);
    if (!p12 || !PKCS12_set_mac(p12, pass, -1, NULL, 0, PKCS12_DEFAULT_ITER, EVP_sha256())) return 1;
    FILE *out = fopen(argv[1], "wb");
    if (!out || !i2d_PKCS12_fp(out, p12)) return 1;
    fclose(out);
    return 0;
}
