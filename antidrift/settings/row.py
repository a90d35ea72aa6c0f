"""What a setting is, declared once: one `Setting` row, and the `Table` of rows everything
else is derived from — the frozen Settings class, the Settings page's groups and labels, the
saved keys, `doctor`, the start's log and what a change retunes live.

A row names its variable, kind, default, a line in plain words (`about`, for the README and
doctor), its group, and on the Settings page its `label` and `help`; whether it is `shared`
with the user's other machines; and `live`: the part of the running server that takes a
change up without a restart ("" : a restart).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

# No setting needs more (a path, a pattern, a command line); a longer one is a paste gone
# wrong, or an attempt to fill the log and the page.
MAX_VALUE = 2000
# The parts of a running server that take a changed setting up at once (Runtime.take_up).
LIVE_PARTS = (
    "coach",  # the AI backend: the coach, the judge and reflections ask it anew
    "drift guard",  # from the next commitment
    "notifications",
    "private titles",
    "window source",
    "away",
    "breaks",
    "tasks",  # read at the next listing
    "calendar",  # read again at once
    "sync",  # the sync folder and this machine's name: sync starts, stops or moves at once
    "day",  # the day's queue: its free minutes count to the new end at once
)
Values = Callable[[str], str]  # a setting's value as the page holds it, by key


class Required:
    """The default of a setting with none: it is given at start (data_dir, from the
    environment); the Settings class has no default for it."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = Required()


@dataclass(frozen=True)
class Setting:
    """One row of the table. On the Settings page (and saved) when it has a `label`."""

    key: str
    variable: str
    kind: Any  # a kind from settings.kinds: accepted, parse(text), show(value)
    about: str
    default: object = REQUIRED
    group: str = ""
    label: str = ""
    help: str = ""  # the line under the page's field, where `about` would repeat the label
    live: str = ""  # one of LIVE_PARTS, or "" when a change needs a restart
    shared: bool = False  # carried to the user's other machines (sync)
    secret: bool = False
    applies: Callable[[Values], bool] | None = None  # the page folds it away when False
    words: Mapping[str, str] = field(default_factory=dict)  # a choice's names, in words

    def __post_init__(self) -> None:
        if self.live not in ("", *LIVE_PARTS):
            raise ValueError(f"{self.key}: live={self.live!r} is none of {LIVE_PARTS}")
        if self.label and not self.live:
            raise ValueError(f"{self.key}: a page setting must say what takes it up live")

    @property
    def page(self) -> bool:
        """Changeable on the Settings page (and saved in settings.json)."""
        return bool(self.label)

    @property
    def accepted(self) -> str:
        return self.kind.accepted

    @property
    def page_help(self) -> str:
        return self.help or self.about

    def parse(self, text: str) -> object:
        """The typed value of a text (an environment value, a form field, the saved file's);
        ValueError with what is accepted."""
        if len(text) > MAX_VALUE:
            raise ValueError(f"{self.accepted} (at most {MAX_VALUE:,} characters)")
        return self.kind.parse(text)

    def given(self, env: Mapping[str, str]) -> str:
        """What the environment sets it to: its variable's text, stripped ("" when unset)."""
        return (env.get(self.variable) or "").strip()

    def applies_with(self, values: Values) -> bool:
        return self.applies is None or self.applies(values)


class SettingsValues:
    """What every Settings class has beside its fields (one per table: `Table.settings`)."""

    table: ClassVar[Table]

    def source(self, key: str) -> str:
        """Where the value of `key` came from: default, saved, environment, command line."""
        return self.sources.get(key, "default")  # type: ignore[attr-defined]

    def shown(self, key: str) -> object:
        """The value of `key` as JSON shows it (a secret is never shown)."""
        setting = self.table.by_key[key]
        value = getattr(self, key)
        if setting.secret:
            return "(set, hidden)" if value else ""
        return setting.kind.show(value)

    def replace(self, **changes: object) -> Any:
        """A copy with some values changed (sources as given in `sources`, if any)."""
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]

    def differs(self, other: SettingsValues) -> frozenset[str]:
        """The keys whose values differ from `other`'s."""
        return frozenset(
            row.key
            for row in self.table.rows
            if getattr(self, row.key) != getattr(other, row.key, None)
        )


class Table:
    """The rows in order, and what is derived from them."""

    def __init__(self, rows: Iterable[Setting], base: type = SettingsValues) -> None:
        self.rows: tuple[Setting, ...] = tuple(rows)
        self.by_key: dict[str, Setting] = {row.key: row for row in self.rows}
        if len(self.by_key) != len(self.rows):
            raise ValueError("two rows share a key")
        self.page_keys: tuple[str, ...] = tuple(row.key for row in self.rows if row.page)
        self.settings = _settings_class(self, base)

    def default_of(self, key: str) -> object:
        return self.by_key[key].default

    def groups(self) -> tuple[tuple[str, tuple[Setting, ...]], ...]:
        """The Settings page's groups in the table's order, each with its page rows."""
        grouped: dict[str, list[Setting]] = {}
        for row in self.rows:
            if row.page:
                grouped.setdefault(row.group or "More", []).append(row)
        return tuple((title, tuple(rows)) for title, rows in grouped.items())

    def labels(self) -> dict[str, str]:
        return {row.key: row.label for row in self.rows if row.page}

    def retuned(self, keys: Iterable[str]) -> frozenset[str]:
        """The live parts that take up a change of these keys ("": one needs a restart)."""
        return frozenset(self.by_key[key].live for key in keys if key in self.by_key)


def _settings_class(table: Table, base: type) -> type:
    """The frozen Settings of a table: one field per row (its default the row's), then the
    process environment and where each value came from."""
    fields: list[tuple[str, Any, Any]] = []
    for row in sorted(table.rows, key=lambda r: r.default is not REQUIRED):  # required first
        if row.default is REQUIRED:
            fields.append((row.key, Any, field()))
        else:
            fields.append((row.key, Any, field(default=row.default, repr=not row.secret)))
    fields += [
        # The process environment, for what the desktop tells its programs (PATH, DISPLAY, …).
        ("env", Mapping[str, str], field(default_factory=dict, repr=False, compare=False)),
        # key → default | saved | environment | command line; a key not in it is a default.
        ("sources", Mapping[str, str], field(default_factory=dict, repr=False, compare=False)),
    ]
    cls = dataclasses.make_dataclass("Settings", fields, bases=(base,), frozen=True)
    cls.__module__ = base.__module__
    cls.table = table
    return cls
