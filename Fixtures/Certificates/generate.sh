#!/bin/sh
# Made the certificate, key and PKCS#12 fixtures with openssl, once: it is a record of how, not a
# way to make the same files again. Every key is drawn anew and ECDSA signatures are randomised, so a
# run gives other files, and the literals the tests pin (digests, signatures, the schema-v5 fixture's
# identity) would all change. The committed files are the oracle; SHA256SUMS lists them and
# FixtureChecksumTests fails on any file changed, added or removed without it. Running it needs
# OpenSSL 3 (kdf, -legacy), cc and libcrypto's headers, xxd and Python's cryptography.
# Passphrase of every .p12: "fixture". After a deliberate run, review every test's failures, then:
#   ls | grep -v -e '^SHA256SUMS$' -e '^generate.sh$' | xargs sha256sum > SHA256SUMS
set -eu
cd "$(dirname "$0")"
rm -f ./*.pem ./*.der ./*.key ./*.p12 ./*.srl ./*.cnf
days=36500

# PrintableString where the characters allow it (openssl's "default" string mask), so that the
# issuer and subject normalisation of Apple's keychain has something to do.
cat > printable.cnf <<'CNF'
[req]
distinguished_name = dn
string_mask = default
prompt = no
[dn]
[ca]
basicConstraints = critical,CA:true
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[leaf]
basicConstraints = CA:false
keyUsage = critical,digitalSignature
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
subjectAltName = email:ci@example.com,DNS:build.example.com
[bare]
basicConstraints = CA:false
subjectKeyIdentifier = none
authorityKeyIdentifier = none
CNF

# A root (RSA 2048, lower case and doubled blanks in its PrintableString name) and an
# intermediate (P-384).
openssl req -x509 -new -config printable.cnf -extensions ca -newkey rsa:2048 -nodes \
  -keyout root.key -out root.pem -days $days -set_serial 1 \
  -subj "/C=us/O=keychainctl  fixtures/CN=  Fixture   Root CA "
openssl req -new -config printable.cnf -newkey ec -pkeyopt ec_paramgen_curve:P-384 -nodes \
  -keyout intermediate.key -out intermediate.csr -subj "/C=US/O=keychainctl fixtures/CN=Fixture Intermediate"
openssl x509 -req -in intermediate.csr -CA root.pem -CAkey root.key -set_serial 0x1000 -days $days \
  -extfile printable.cnf -extensions ca -out intermediate.pem

# Leaves: EC P-256 (SAN, SKID; signed by the intermediate, a serial with its high bit set) and RSA
# 2048 (no SKID, UTF8String CN, signed by the root).
openssl req -new -config printable.cnf -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout leaf-ec.key -out leaf-ec.csr -subj "/O=keychainctl fixtures/OU=CI/CN=ci signing"
openssl x509 -req -in leaf-ec.csr -CA intermediate.pem -CAkey intermediate.key -set_serial 0x8badf00d \
  -days $days -extfile printable.cnf -extensions leaf -out leaf-ec.pem
openssl req -new -utf8 -newkey rsa:2048 -nodes -keyout leaf-rsa.key -out leaf-rsa.csr \
  -subj "/CN=Développeur RSA/O=keychainctl fixtures" -config printable.cnf
openssl x509 -req -in leaf-rsa.csr -CA root.pem -CAkey root.key -set_serial 42 -days $days \
  -extfile printable.cnf -extensions bare -out leaf-rsa.pem
# No CommonName: the label falls back to the first e-mail address.
openssl req -new -config printable.cnf -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout leaf-nocn.key -out leaf-nocn.csr -subj "/O=keychainctl fixtures/OU=Release"
openssl x509 -req -in leaf-nocn.csr -CA root.pem -CAkey root.key -set_serial 7 -days $days \
  -extfile printable.cnf -extensions leaf -out leaf-nocn.pem
rm -f ./*.csr

# The same objects in the other encodings and key formats.
openssl x509 -in leaf-ec.pem -outform DER -out leaf-ec.der
openssl ec -in leaf-ec.key -out leaf-ec-sec1.key 2>/dev/null
openssl pkey -in leaf-ec.key -outform DER -out leaf-ec-pkcs8.der
openssl pkey -in leaf-ec.key -pubout -out leaf-ec-public.pem
openssl pkey -in leaf-ec.key -pubout -outform DER -out leaf-ec-public.der
openssl rsa -in leaf-rsa.key -traditional -out leaf-rsa-pkcs1.key 2>/dev/null
openssl rsa -in leaf-rsa.key -RSAPublicKey_out -out leaf-rsa-pkcs1-public.pem 2>/dev/null
openssl pkey -in leaf-rsa.key -pubout -out leaf-rsa-public.pem
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-521 -out p521.key
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:4096 -out rsa4096.key
openssl genpkey -algorithm ed25519 -out ed25519.key
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:secp256k1 -out secp256k1.key
openssl pkcs8 -topk8 -in leaf-ec.key -passout pass:fixture -out leaf-ec-encrypted.key
cat leaf-ec.pem leaf-ec.key > leaf-ec-identity.pem

# Signatures OpenSSL makes of one message, which the library's SecKey verifies (and, RSA PKCS#1
# v1.5 being deterministic, makes again byte for byte).
printf 'keychainctl signs this' > signed-message.txt
openssl dgst -sha256 -sign leaf-rsa.key -out signed-message.rsa-pkcs1-sha256.sig signed-message.txt
openssl dgst -sha256 -sign leaf-ec.key -out signed-message.ec-sha256.sig signed-message.txt

# The leaf's EC key in Apple's external representation (04‖X‖Y‖K), another key's public point,
# and what OpenSSL derives from the two: the ECDH secret, and 20 bytes of ANSI X9.63 (SHA-256,
# shared info "keychai").
openssl ec -in leaf-ec.key -pubout -outform DER 2>/dev/null | tail -c 65 > leaf-ec-external.bin
openssl ec -in leaf-ec.key -noout -text 2>/dev/null | sed -n '/priv:/,/pub:/p' | sed '1d;$d' | tr -d ' :\n' \
  | tail -c 64 | xxd -r -p >> leaf-ec-external.bin
openssl ec -in leaf-nocn.key -pubout -outform DER 2>/dev/null | tail -c 65 > leaf-nocn-point.bin
openssl ec -in leaf-nocn.key -pubout -out leaf-nocn-public.pem 2>/dev/null
openssl pkeyutl -derive -inkey leaf-ec.key -peerkey leaf-nocn-public.pem -out ecdh-leaf-nocn.bin
rm -f leaf-nocn-public.pem
openssl kdf -keylen 20 -kdfopt digest:SHA256 -kdfopt hexkey:"$(xxd -p -c 256 ecdh-leaf-nocn.bin)" \
  -kdfopt hexinfo:6b657963686169 -binary -out ecdh-leaf-nocn-x963-sha256.bin X963KDF
python3 ecies-fixture.py

# PKCS#12: modern (AES-256-CBC, PBKDF2, HMAC-SHA-256) with the chain; legacy (RC2-40 for the
# certificates, 3DES for the key, SHA-1 MAC, as OpenSSL 1.x and older Keychain Access wrote);
# one with no key.
cat intermediate.pem root.pem > chain.pem
openssl pkcs12 -export -in leaf-ec.pem -inkey leaf-ec.key -certfile chain.pem -name "ci signing" \
  -passout pass:fixture -out identity-modern.p12
openssl pkcs12 -export -legacy -in leaf-rsa.pem -inkey leaf-rsa.key -certfile root.pem \
  -passout pass:fixture -out identity-legacy.p12
openssl pkcs12 -export -nokeys -in chain.pem -passout pass:fixture -out certificates-only.p12
openssl pkcs12 -export -nocerts -inkey leaf-ec.key -passout pass:fixture -out key-only.p12
# An identity whose key Apple's SecPKCS12Import refuses (RSA and EC only).
openssl req -new -x509 -key ed25519.key -subj "/CN=ed25519 identity" -days $days -out ed25519.pem
openssl pkcs12 -export -in ed25519.pem -inkey ed25519.key -passout pass:fixture -out identity-ed25519.p12
rm -f ed25519.pem
# Two identities and a third certificate in one file: openssl's CLI writes one key at most.
cc -o multi-identity multi-identity.c -lcrypto
./multi-identity identity-multiple.p12 fixture leaf-ec.pem leaf-ec.key leaf-rsa.pem leaf-rsa.key root.pem
rm -f multi-identity
# No MAC: a wrong passphrase shows only in the decrypted padding.
openssl pkcs12 -export -legacy -nomac -in leaf-rsa.pem -inkey leaf-rsa.key -passout pass:fixture -out identity-legacy-nomac.p12
# A hostile file asking for 2^31-1 PBKDF2 iterations (MAC and both encryptions): written with
# 2^24, then the three counts patched in place (the MAC no longer verifies; nothing should get that far).
openssl pkcs12 -export -in leaf-ec.pem -inkey leaf-ec.key -passout pass:fixture -iter 16777216 -out hostile-iterations.p12
python3 -c "import sys; p='hostile-iterations.p12'; d=open(p,'rb').read(); open(p,'wb').write(d.replace(bytes([2,4,1,0,0,0]), bytes([2,4,0x7f,0xff,0xff,0xff])))"
# Serials Apple's parser treats specially: a negative one (accepted) and one of 40 bytes (refused:
# over 37).
openssl req -new -key leaf-ec.key -subj "/CN=negative serial" -out serial.csr
openssl x509 -req -in serial.csr -CA root.pem -CAkey root.key -set_serial -5 -days $days -out serial-negative.pem
openssl x509 -req -in serial.csr -CA root.pem -CAkey root.key -days $days -out serial-40-bytes.pem \
  -set_serial 0x7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f
rm -f serial.csr
# Curve25519 keys Apple's SecKey stores (types 105 and 106), with their public halves.
openssl genpkey -algorithm X25519 -out x25519.key
openssl genpkey -algorithm ed448 -out ed448.key  # a curve Apple does not store
openssl pkey -in ed25519.key -pubout -out ed25519-public.pem
openssl pkey -in x25519.key -pubout -out x25519-public.pem
# A forged key: another P-256 scalar carrying leaf-ec's public point (openssl ec -check: "EC Key
# Invalid!"), as a SEC1 key and in a PKCS#12 with leaf-ec's certificate. It must never pair.
openssl ecparam -name prime256v1 -genkey -noout -outform DER -out forged.der
openssl ec -in leaf-ec.key -pubout -outform DER 2>/dev/null | tail -c 65 > leaf-point.bin
python3 -c "d=open('forged.der','rb').read(); p=open('leaf-point.bin','rb').read(); open('forged.der','wb').write(d[:-65]+p)"
openssl ec -inform DER -in forged.der -out leaf-ec-forged.key
openssl pkcs12 -export -in leaf-ec.pem -inkey leaf-ec-forged.key -passout pass:fixture -out identity-forged.p12
rm -f forged.der leaf-point.bin
