"""Seals a message to leaf-ec's public key as Apple's SecKey ECIES does (X9.63 SHA-256, AES-GCM
with a derived IV, and with an all-zero one), with leaf-nocn's key as the ephemeral one, so the
library's open is checked against an implementation written apart from it. Run by generate.sh
(Python's cryptography package)."""
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF


def load(path):
    with open(path, "rb") as f:
        return serialization.load_pem_private_key(f.read(), password=None)


recipient = load("leaf-ec.key").public_key()
ephemeral = load("leaf-nocn.key")
point = ephemeral.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
shared = ephemeral.exchange(ec.ECDH(), recipient)
for name, derived_iv in (("ecies-variable-iv-sha256.bin", True), ("ecies-sha256.bin", False)):
    derived = X963KDF(algorithm=hashes.SHA256(), length=32 if derived_iv else 16, sharedinfo=point).derive(shared)
    key, iv = derived[:16], derived[16:] if derived_iv else bytes(16)
    sealed = AESGCM(key).encrypt(iv, b"keychainctl sealed this", None)
    with open(name, "wb") as f:
        f.write(point + sealed)
