"""The sync folder's cryptography: a key from the passphrase (Argon2id), every file sealed
(XChaCha20-Poly1305) under its device and name, a wrong passphrase said in a sentence, and the
derived keys kept 0600 in the data directory."""

from __future__ import annotations

import json
import stat

import pytest

from antidrift.core.errors import Error, ValidationError
from antidrift.sync import Keyring, WrongPassphrase, unlock
from antidrift.sync.crypto import (
    FAST,
    NORMAL,
    KeyParams,
    NotAuthentic,
    new_key,
    open_key,
    seal,
    unseal,
)
from antidrift.sync.errors import Malformed

A, B = "a" * 26, "b" * 26


@pytest.fixture(scope="module")
def made():
    return new_key("passphrase one", A, fast=True)


def test_a_sealed_file_opens_with_its_key_under_its_own_name(made):
    _, key = made
    sealed = seal(key, b"records", A, "segments/00000001-aaaaaaaa.seg")
    assert b"records" not in sealed
    assert unseal(key, sealed, A, "segments/00000001-aaaaaaaa.seg") == b"records"
    assert seal(key, b"records", A, "now") != seal(key, b"records", A, "now")  # fresh nonces


@pytest.mark.parametrize(
    ("device", "name"),
    [(A, "manifest"), (B, "now"), (A, "segments/00000002-aaaaaaaa.seg")],
    ids=["as another file", "in another device's folder", "as another segment"],
)
def test_a_file_moved_or_swapped_does_not_open(made, device, name):
    _, key = made
    sealed = seal(key, b"what A is doing", A, "now")
    with pytest.raises(NotAuthentic) as refused:
        unseal(key, sealed, device, name)
    assert "doing" not in refused.value.message and refused.value.why


def test_a_changed_byte_does_not_open(made):
    _, key = made
    sealed = bytearray(seal(key, b"x" * 100, A, "now"))
    sealed[40] ^= 1
    with pytest.raises(NotAuthentic):
        unseal(key, bytes(sealed), A, "now")


def test_the_right_passphrase_gives_the_same_key_from_the_parameters(made):
    params, key = made
    kept = KeyParams.from_bytes(json.dumps(params.to_json()).encode())
    assert kept == params and (kept.opslimit, kept.memlimit) == FAST
    assert open_key("passphrase one", A, kept) == key


def test_a_wrong_passphrase_is_a_sentence_that_quotes_neither_passphrase(made):
    params, _ = made
    with pytest.raises(WrongPassphrase) as refused:
        open_key("passphrase two", A, params)
    message = refused.value.message
    assert isinstance(refused.value, Error) and refused.value.status == 400
    assert message[0].isupper() and message.endswith(".")
    assert "passphrase one" not in message and "passphrase two" not in message


def test_the_check_is_bound_to_its_device(made):
    params, _ = made
    with pytest.raises(WrongPassphrase):
        open_key("passphrase one", B, params)  # A's parameters shown as B's


def test_an_empty_passphrase_is_refused():
    with pytest.raises(ValidationError) as refused:
        new_key("", A, fast=True)
    assert refused.value.field == "sync_passphrase"


def test_normal_limits_are_memory_hard_and_fast_ones_are_for_tests():
    params, _ = new_key("passphrase", A)
    assert (params.opslimit, params.memlimit) == NORMAL
    assert params.memlimit >= 64 << 20 and FAST[1] < NORMAL[1]


@pytest.mark.parametrize(
    "change",
    [
        {"opslimit": 1_000_000},
        {"memlimit": 1 << 40},
        {"salt": "c2hvcnQ="},
        {"kdf": "md5"},
        {"format": 9},
        {"check": 5},
    ],
    ids=["a million passes", "a TiB of memory", "a short salt", "another kdf", "a format", "bad"],
)
def test_key_parameters_out_of_range_are_refused_not_obeyed(made, change):
    params, _ = made
    hostile = {**params.to_json(), **change}
    with pytest.raises(Malformed) as refused:
        KeyParams.from_bytes(json.dumps(hostile).encode(), "devices/x/keyparams")
    assert refused.value.message.startswith("devices/x/keyparams ")


def test_derived_keys_are_kept_0600_in_the_data_dir_and_survive_a_restart(tmp_path):
    folder = tmp_path / "Sync"
    keys = Keyring(tmp_path / "data")
    assert unlock(keys, folder, A, "passphrase", fast=True) == [A]
    path = tmp_path / "data" / "sync" / "keyring.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["keyring.json"]  # no temp left
    assert "passphrase" not in path.read_text()
    assert Keyring(tmp_path / "data").get(A) == keys.get(A)
    assert unlock(keys, folder, A, "passphrase", fast=True) == []  # nothing new to derive


def test_a_damaged_keyring_says_what_to_do(tmp_path):
    path = tmp_path / "sync" / "keyring.json"
    path.parent.mkdir()
    path.write_text('{"keys": {"x": {"salt": 1}}}')
    with pytest.raises(Error) as refused:
        Keyring(tmp_path)
    assert "passphrase again" in refused.value.message


def test_the_sizes_written_out_are_libsodium_s_own():
    import nacl.pwhash.argon2id as argon2id
    import nacl.secret

    from antidrift.sync import crypto

    assert crypto.KEY_BYTES == nacl.secret.Aead.KEY_SIZE
    assert crypto.SALT_BYTES == argon2id.SALTBYTES
    assert (crypto.OPSLIMIT_MIN, crypto.MEMLIMIT_MIN) == (
        argon2id.OPSLIMIT_MIN,
        argon2id.MEMLIMIT_MIN,
    )


def test_a_start_with_sync_off_loads_no_libsodium():
    import subprocess
    import sys

    probe = (
        "import sys; from antidrift.settings import load; import antidrift.session.syncing;"
        " load({}, data_dir=sys.argv[1]);"
        " print(sorted(m for m in sys.modules if m.startswith('nacl')))"
    )
    import tempfile

    with tempfile.TemporaryDirectory() as data:
        out = subprocess.run(
            [sys.executable, "-c", probe, data], capture_output=True, text=True, check=True
        ).stdout
    assert out.strip() == "[]"
