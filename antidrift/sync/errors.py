"""What can go wrong with the sync folder, each a sentence that quotes nothing of a file's
content (core/errors.py's one base): a file not taken says why in a few words, to stand after
its name in the `skipped` list."""

from __future__ import annotations

from antidrift.core.errors import Error


class WrongPassphrase(Error):
    """The passphrase does not open a device's files (its key check fails): nothing read."""

    status = 400


class FileProblem(Error):
    """A file in the sync folder not taken: `what` names it, `why` says why in a few words
    that quote nothing of it; the message is both."""

    status = 422

    def __init__(self, what: str, why: str) -> None:
        super().__init__(f"{what} {why}")
        self.what, self.why = what, why


class NotAuthentic(FileProblem):
    """A sealed file does not open with its device's key under its own name: damaged,
    tampered with, swapped for another, or sealed with another key."""


class Malformed(FileProblem):
    """A file opened but is not what its name says (a bad record, a limit passed)."""


class SharedDeviceId(Error):
    """A file in this device's own folder that this device did not write: another machine
    uses the same device id (a copied data directory). Nothing is written or read."""

    status = 409

    def __init__(self, file: str) -> None:
        super().__init__(
            f"Another machine writes to this machine's sync folder ({file}): the two share "
            "one device id, most likely from a copied data directory. Run `antidrift sync "
            "new-id` on one of them to give it an id of its own."
        )
        self.file = file


class SyncFolderPlacement(Error):
    """The sync folder and the data directory overlap; AntiDrift keeps them apart."""

    status = 400
