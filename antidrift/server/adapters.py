"""What the settings choose, built anew at the start and after each change on the Settings
page: the AI backend, the coach (or why there is none), the drift judge and its policy (or
why the guard is off), the notifier — gathered into one Tuning (`tuning`) that
`Controller.retune` hands to every part. The composition root (bootstrap.py) wires them."""

from __future__ import annotations

import logging
import re
import socket
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

from antidrift import ai
from antidrift.ai.reflect import ReflectService
from antidrift.core.loopback import is_loopback
from antidrift.core.outside import Unreadable, read_file
from antidrift.core.ports import Store
from antidrift.core.rhythm import BreakSettings
from antidrift.drift.policy import DriftSettings
from antidrift.notify import Background, build_notifier
from antidrift.session.controller import Controller
from antidrift.session.snapshot import CoachInfo, DriftInfo
from antidrift.session.state import Tuning
from antidrift.session.syncing import Syncing
from antidrift.settings import SETTINGS, LiveSettings, Settings

log = logging.getLogger("antidrift")

# The log names a setting as the Settings page and settings.json do (issue 33): `doctor`,
# which reports the environment, keeps the variables.
_KEYS = {setting.variable: setting.key for setting in SETTINGS}
_VARIABLE = re.compile(r"\bANTIDRIFT_[A-Z_]+\b")


def as_setting(text: str) -> str:
    """`text` with each ANTIDRIFT_* variable of a setting said as that setting's name."""
    return _VARIABLE.sub(lambda m: f"the {_KEYS[m[0]]} setting" if m[0] in _KEYS else m[0], text)


def new_backend(settings: Settings, name: str | None = None) -> ai.Backend:
    """The AI backend the settings choose (or the one `name`s, with the same tuning)."""
    return ai.new_backend(settings.ai_backend if name is None else name, ai.Options.of(settings))


def build_coach(settings: Settings) -> tuple[ai.Service | None, CoachInfo]:
    """The configured coach, or None with a reason the page and the log can show."""
    try:
        backend = new_backend(settings)
    except ai.UnknownBackend as exc:
        log.warning("running without a coach: %s", as_setting(str(exc)))
        return None, CoachInfo(None, f"{exc}")
    if backend.binary() is None:
        # Said, not warned: everything works by hand without a coach, and the page says so
        # where Sharpen is (a start's log has no WARNING for a choice the user may have made).
        log.info(
            "the %s CLI was not found on PATH: Sharpen will say so until it is installed"
            " (or set %s)",
            backend.name,
            as_setting(backend.env_var),
        )
    return ai.Service(backend, timeout=settings.ai_timeout), CoachInfo(backend.name, None, backend)


def remote_address(url: object) -> str | None:
    """Where an AI server's URL sends what it is given, when that is another machine (the
    settings refuse it unless ANTIDRIFT_AI_ALLOW_REMOTE=1): its host and port, else None."""
    if not isinstance(url, str):
        return None  # a CLI backend: its own service, named on the page already
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return url
    if host and is_loopback(host):
        return None
    return parts.netloc or url


def build_drift(
    settings: Settings, coach: ai.Service | None
) -> tuple[ai.JudgeService | None, DriftSettings | None, DriftInfo]:
    """The drift judge on the coach's backend, or why the guard is off."""
    if settings.drift == "off":
        log.info("drift guard off (the drift setting is off)")
        return None, None, DriftInfo(False, why_off="turned off in Settings")
    if coach is None:
        return None, None, DriftInfo(False, why_off="there is no AI backend to judge with")
    backend = coach.backend
    cli = backend.name  # named as the planning view names the coach ("command", not "python3")
    policy = drift_settings(settings)
    remote = remote_address(getattr(backend, "url", None))
    if backend.binary() is None:  # as the page says it: off until the CLI is there
        log.info("drift guard waiting: %s is not installed; it judges once it is", cli)
    else:
        log.info("drift guard on: %s judges the focused window's app, title and site", cli)
    if remote is not None:
        log.warning("window titles leave this machine: they go to %s", remote)
    info = DriftInfo(
        True,
        cli,
        titles_excluded=settings.evidence_exclude is not None,
        remote=remote,
        teeth=settings.enforce == "minimize",
        teeth_after=settings.enforce_after,
    )
    return ai.JudgeService(backend, timeout=settings.ai_timeout), policy, info


def drift_settings(settings: Settings) -> DriftSettings:
    """The guard's timing and teeth, as the settings say them (with a judge or without)."""
    return DriftSettings(
        timedelta(seconds=settings.drift_grace),
        timedelta(seconds=settings.drift_cooldown),
        settings.drift_max_calls,
        settings.enforce,
        timedelta(seconds=settings.enforce_after),
    )


# The live parts (settings rows' `live`) that `tuning` builds: a change to one builds them anew.
TUNED = frozenset({"coach", "drift guard", "notifications", "private titles", "away", "breaks"})


def tuning(settings: Settings) -> tuple[Tuning, CoachInfo, DriftInfo]:
    """Every part the settings choose, built anew (at the start, and after each change on the
    Settings page), with what the pages say about the coach and the drift guard."""
    coach, info = build_coach(settings)
    judge, drift, drift_info = build_drift(settings, coach)
    # In the background: a notification daemon that hangs must never hold a transition.
    notifier = Background(
        build_notifier(settings.notify, settings.notify_command, env=settings.env)
    )
    reflector = ReflectService(coach.backend, timeout=settings.ai_timeout) if coach else None
    breaks = BreakSettings(
        settings.break_minutes,
        settings.long_break_minutes,
        settings.long_break_every,
        settings.auto_break,
    )
    parts = Tuning(
        coach,
        _unavailable(info),
        reflector,
        judge,
        drift,
        settings.evidence_exclude,
        notifier,
        breaks,
        away_after=settings.away_after,
        follow_drift=drift_settings(settings),  # Guard here too: rules decide without a judge
    )
    return parts, info, drift_info


def _unavailable(info: CoachInfo) -> str:
    return f"coach unavailable — {info.problem}" if info.problem else "coach unavailable"


def build_sync(
    settings: Settings, store: Store, controller: Controller, live: LiveSettings | None = None
) -> Syncing:
    """This machine in the sync folder (its identity even with sync off). The passphrase is
    read from ANTIDRIFT_SYNC_PASSPHRASE_FILE when a key must be derived, never kept."""

    def passphrase() -> str | None:
        if not settings.sync_passphrase_file:
            return None
        path = Path(settings.sync_passphrase_file).expanduser()
        try:
            text = read_file(path, max_bytes=4096, what="the sync passphrase file")
        except Unreadable as exc:
            log.warning("sync: %s", exc.message)
            return None
        return text.decode("utf-8", errors="replace").strip() or None

    name = settings.device_name or socket.gethostname()[:64] or "this machine"
    syncing = Syncing(
        store,
        controller.work,
        settings.data_dir,
        settings.sync_folder,
        name,
        passphrase,
        fast=settings.sync_kdf == "fast",
        snapshot=controller.snapshot,
        settings=live,
        rules_taken=controller.rules.taken,
    )
    controller.following.look = syncing.now_of  # Guard here too reads the others' `now`
    return syncing
