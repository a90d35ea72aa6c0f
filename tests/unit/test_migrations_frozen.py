"""Shipped migrations never change: each one's SQL is a literal, pinned here by hash.

A database migrated by 0.3 and one migrated by 0.5 must end up the same, so a migration that
has shipped is never edited (not even by a constant or a query it borrowed from the store):
a fix is a new migration. Adding one? Add its pin below: the failing test prints the line.
"""

from __future__ import annotations

import ast
import hashlib
import inspect

from antidrift.store import migrations

# version: sha256 of the migration's name and SQL, whitespace collapsed (layout may change;
# a word of SQL may not).
PINS = {
    1: "77745b3f4158924cb7e5925a8fcc28e3539c52de8664c469cec3894ab10c4bcd",
    2: "90ddea15b29d79256c0cae3f87e3ca00e349bb0a3a0ef2d84c86e0f16b67bc4a",
    3: "754fb478d71936e6b805660beb29853c0e3bf78a7875ecd00645ba2a0abf0f09",
    4: "df0ff9aa0d4aa35c0a39e0b114765bfc73a60a1d5d87474242bb8259c47e632e",
    5: "fa061f0fce50a6bb2a886f4eeb2af04b365d4fbc3ed5beb572f2ec05701ea182",
    6: "dbaa4cd213143c8e902be0ea99a327f1dd23e22aa8988bd87a4de2868bf26a55",
    7: "de3eb2b3838ca433dfde104b7bae2461b1134c09fa43329826e560aa9e717919",
    8: "88ccab5a1dd0199f216d15516dfe280a9b9d1c13241a1240565e302ecda3dd38",
    9: "4619247765409cfe270b12bab182e43ef06385e9540d0944d514dc77ae3a4353",
    10: "ec7a7b226b387ccb5d059782c4ab53db05840adad564071bf69d21a389f5dd8e",
    11: "a6dad75ac8383c4c3941d358dd8468a14630f755940f13e63564fc640eb518dd",
    12: "59c6380742d3e8a95372da7aa1e0349492297368eb9ed769dd8b4c68ae9ad75f",
    13: "06ef089361e2c3c8051d4feca7ac17582dfa7d70cb7cb650e9b7fa9bafe74cf9",
    14: "5feac6558b66ebdef79762a4eec2bf5caf6bdb4ee258d4b7f522ce035987a55b",
    15: "cd968995462a1beb2f62c233a95dd2fc88887962773f7b8a2c090b5cf462c8fa",
    16: "7b8de96657b1282c6ecbfb4eb2afaee2d266a392da46c930eebcceedeb3a9776",
    17: "afc5d33c5e49a1ed6c38227006b9e12b632e0167b6746d3ed7cdff7d8c46f9c0",
    18: "e47f828bd1b41b7119585a56b4964882c241da60b9803f3454455733b1316e59",
    19: "51724dbddf824e4386cb995a44262deedb581f03e80bf4ea30cb29a91c6abc54",
    20: "928df61e38864c32b3e5187a62838c7253096a89a4c1ce8ba53826645600a2ba",
}

NEVER_EDIT = "never edit a shipped migration; add a new one"


def fingerprint(name: str, sql: str) -> str:
    return hashlib.sha256(" ".join([name, *sql.split()]).encode()).hexdigest()


def test_every_migration_is_pinned_and_unchanged():
    problems = []
    for version, name, sql in migrations.MIGRATIONS:
        now = fingerprint(name, sql)
        pin = PINS.get(version)
        if pin is None:
            problems.append(
                f'migration {version} ({name!r}) has no pin: add `{version}: "{now}",` to PINS'
                " in tests/unit/test_migrations_frozen.py when you add it (and from then on,"
                f" {NEVER_EDIT})"
            )
        elif pin != now:
            problems.append(
                f"migration {version} ({name!r}) has changed since it shipped: {NEVER_EDIT}"
                f" (pinned {pin[:12]}…, now {now[:12]}…)"
            )
    assert not problems, "\n".join(problems)


def test_no_pin_is_left_without_its_migration():
    versions = [version for version, _, _ in migrations.MIGRATIONS]
    gone = sorted(set(PINS) - set(versions))
    assert not gone, f"shipped migrations {gone} were removed: {NEVER_EDIT}"
    assert versions == list(range(1, len(versions) + 1)), "numbered 1, 2, 3… in order"


def test_migrations_are_literals_that_borrow_nothing_from_the_app():
    # An f-string or an import would let a change elsewhere rewrite a shipped migration.
    tree = ast.parse(inspect.getsource(migrations))
    imports = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom | ast.Import)
        and not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
    ]
    assert not imports, "migrations.py imports nothing: each migration's SQL is a literal"
    formatted = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)]
    assert not formatted, f"f-strings in migrations.py at lines {formatted}: write the SQL out"
