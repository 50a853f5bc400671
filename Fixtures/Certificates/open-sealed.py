"""Opens what the library sealed, written apart from it on Python's cryptography package (OpenSSL
underneath), as Apple's SecKey seals (SecKeyAdaptors.m):

  open-sealed.py ecies|ecies-kdfiv DIGEST KEY SEALED   ECIES, X9.63 KDF, AES-GCM (zero or derived IV)
  open-sealed.py rsa-aesgcm DIGEST KEY SEALED           RSA OAEP wrapping an AES-GCM session key

KEY holds the private key in Apple's external representation (SecKeyCopyExternalRepresentation:
04|X|Y|K, or PKCS#1 DER); DIGEST is SHA1, SHA224, ..., SHA512. The plaintext goes to stdout."""
import sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF

mode, digest_name, key_path, sealed_path = sys.argv[1:]
digest = getattr(hashes, digest_name)()
key = open(key_path, "rb").read()
sealed = open(sealed_path, "rb").read()
zero_iv = bytes(16)

if mode in ("ecies", "ecies-kdfiv"):
    width = (len(key) - 1) // 3
    curve = {32: ec.SECP256R1(), 48: ec.SECP384R1(), 66: ec.SECP521R1()}[width]
    private = ec.derive_private_key(int.from_bytes(key[1 + 2 * width :], "big"), curve)
    point = sealed[: 1 + 2 * width]
    shared = private.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(curve, point))
    key_length = 32 if width * 8 > 256 else 16
    iv_length = 16 if mode == "ecies-kdfiv" else 0
    derived = X963KDF(algorithm=digest, length=key_length + iv_length, sharedinfo=point).derive(shared)
    iv = derived[key_length:] if iv_length else zero_iv
    plaintext = AESGCM(derived[:key_length]).decrypt(iv, sealed[len(point) :], None)
elif mode == "rsa-aesgcm":
    private = serialization.load_der_private_key(key, password=None)
    block = (private.key_size + 7) // 8
    oaep = padding.OAEP(mgf=padding.MGF1(algorithm=digest), algorithm=digest, label=None)
    session = private.decrypt(sealed[:block], oaep)
    public = private.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.PKCS1)
    plaintext = AESGCM(session).decrypt(zero_iv, sealed[block:], public)
else:
    sys.exit("unknown mode " + mode)
sys.stdout.buffer.write(plaintext)
