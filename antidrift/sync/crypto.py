"""The sync folder's cryptography, all of it libsodium's through PyNaCl (nothing hand-rolled):
a key from the passphrase by Argon2id (memory-hard), and XChaCha20-Poly1305 (an AEAD) for
every file, with the file's device and name bound as associated data, so a file moved to
another name or another device's folder no longer opens.

Each device folder carries its own `keyparams` in clear (JSON): the salt, the Argon2id
limits, and a check, a fixed text sealed with the key, so a wrong passphrase is known at once
(the check does not open) rather than by a file that will not."""

from __future__ import annotations

import base64
import os
import unicodedata
from dataclasses import dataclass

from antidrift.core.errors import ValidationError
from antidrift.core.outside import Unreadable, parse_json
from antidrift.sync.errors import Malformed, NotAuthentic, WrongPassphrase

# libsodium's sizes and limits, written out: PyNaCl (and libsodium, 1.5 MiB) is loaded only
# when a key is derived or a file sealed or opened, never by a start with sync off
# (tests/unit/sync: these equal PyNaCl's own).
MIN_PASSPHRASE = 8  # characters: a key is only as strong as what it is derived from
KEY_BYTES = 32  # nacl.secret.Aead.KEY_SIZE (XChaCha20-Poly1305)
SALT_BYTES = 16  # nacl.pwhash.argon2id.SALTBYTES
OPSLIMIT_MIN, MEMLIMIT_MIN = 1, 8192  # nacl.pwhash.argon2id.OPSLIMIT_MIN, MEMLIMIT_MIN
MAGIC = b"ADS1"  # AntiDrift sync, format 1: the first bytes of every sealed file
KDF_NAME = "argon2id"
# Above libsodium's "interactive" (2 passes, 64 MiB): ~0.13 s on the machines measured.
NORMAL = (3, 64 << 20)
FAST = (OPSLIMIT_MIN, MEMLIMIT_MIN)  # ANTIDRIFT_SYNC_KDF=fast: tests only
# What a reader accepts from another device's keyparams: a hostile file asking for 64 GiB
# or a million passes is refused, not obeyed.
OPS_RANGE = (OPSLIMIT_MIN, 16)
MEM_RANGE = (MEMLIMIT_MIN, 1 << 30)
KEYPARAMS_MAX_BYTES = 4096
_CHECK = b"AntiDrift sync: this key opens this device's files."


@dataclass(frozen=True)
class KeyParams:
    """A device's key parameters, kept in clear in its folder."""

    salt: bytes
    opslimit: int
    memlimit: int
    check: bytes

    def to_json(self) -> dict[str, object]:
        return {
            "format": 1,
            "kdf": KDF_NAME,
            "salt": b64(self.salt),
            "opslimit": self.opslimit,
            "memlimit": self.memlimit,
            "check": b64(self.check),
        }

    @classmethod
    def from_bytes(cls, data: bytes, what: str = "keyparams") -> KeyParams:
        """The parameters in `data` (a keyparams file); Unreadable or Malformed (quoting
        nothing) when they are not well formed or ask for limits out of range."""
        try:
            value = parse_json(data, what=what, max_containers=4)
        except Unreadable as exc:
            raise Malformed(what, exc.message.removeprefix(what).strip()) from None
        if not isinstance(value, dict) or value.get("kdf") != KDF_NAME:
            raise Malformed(what, "holds no key parameters of AntiDrift's")
        if value.get("format") != 1:
            raise Malformed(what, "is in a format this version does not know")
        try:
            params = cls(
                unb64(value["salt"]),
                int(value["opslimit"]),
                int(value["memlimit"]),
                unb64(value["check"]),
            )
        except (KeyError, TypeError, ValueError):
            raise Malformed(what, "lacks a field or holds a malformed one") from None
        ops_ok = OPS_RANGE[0] <= params.opslimit <= OPS_RANGE[1]
        mem_ok = MEM_RANGE[0] <= params.memlimit <= MEM_RANGE[1]
        if len(params.salt) != SALT_BYTES or not ops_ok or not mem_ok:
            raise Malformed(what, "asks for key limits out of range")
        return params


def new_key(passphrase: str, device: str, *, fast: bool = False) -> tuple[KeyParams, bytes]:
    """A new salt for `device`, the key the passphrase gives with it, and the parameters to
    keep in clear in the device's folder. `fast`: cheap limits, for tests only."""
    opslimit, memlimit = FAST if fast else NORMAL
    salt = os.urandom(SALT_BYTES)
    key = derive(passphrase, salt, opslimit, memlimit)
    return params_for(key, salt, opslimit, memlimit, device), key


def open_key(passphrase: str, device: str, params: KeyParams) -> bytes:
    """`device`'s key from the passphrase and its parameters; WrongPassphrase when the
    passphrase is not the one it was made with."""
    key = derive(passphrase, params.salt, params.opslimit, params.memlimit)
    try:
        opened = unseal(key, params.check, device, "keyparams")
    except NotAuthentic:
        opened = b""
    if opened != _CHECK:
        raise WrongPassphrase(
            "The sync passphrase does not open the files of one of your other machines: "
            "enter the passphrase you chose on them."
        )
    return key


def params_for(key: bytes, salt: bytes, opslimit: int, memlimit: int, device: str) -> KeyParams:
    """The keyparams of `device` for a key derived with this salt and these limits (the
    check bound to its id: a new id keeps its key, with a check of its own)."""
    return KeyParams(salt, opslimit, memlimit, seal(key, _CHECK, device, "keyparams"))


def derive(passphrase: str, salt: bytes, opslimit: int, memlimit: int) -> bytes:
    """Argon2id of the passphrase (Unicode NFC, UTF-8) with `salt` and the limits."""
    if not passphrase:
        raise ValidationError("Enter a sync passphrase: it cannot be empty.", "sync_passphrase")
    import nacl.pwhash.argon2id as argon2id

    secret = unicodedata.normalize("NFC", passphrase).encode("utf-8")
    return argon2id.kdf(KEY_BYTES, secret, salt, opslimit=opslimit, memlimit=memlimit)


def seal(key: bytes, plaintext: bytes, device: str, name: str) -> bytes:
    """`plaintext` encrypted and authenticated as the file `name` of `device` (a fresh random
    24-byte nonce each time)."""
    import nacl.secret

    return MAGIC + bytes(nacl.secret.Aead(key).encrypt(plaintext, _bound(device, name)))


def unseal(key: bytes, sealed: bytes, device: str, name: str) -> bytes:
    """The plaintext of what `seal` made for this device and name; NotAuthentic otherwise."""
    if not sealed.startswith(MAGIC):
        raise NotAuthentic(name, "is not a file AntiDrift sealed")
    import nacl.exceptions
    import nacl.secret

    try:
        return nacl.secret.Aead(key).decrypt(sealed[len(MAGIC) :], _bound(device, name))
    except (nacl.exceptions.CryptoError, ValueError):
        raise NotAuthentic(name, "does not open with its device's key under its name") from None


def _bound(device: str, name: str) -> bytes:
    """The associated data: what a sealed file is, so it cannot pass for another."""
    return b"antidrift-sync\x001\x00" + device.encode() + b"\x00" + name.encode()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unb64(text: object) -> bytes:
    if not isinstance(text, str) or len(text) > 256:
        raise ValueError("not base64 text")
    return base64.b64decode(text.encode("ascii"), validate=True)
