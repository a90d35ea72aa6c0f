"""The drift guard's tables: verdicts with what was sent, unclear time, standing rules, and a
0.3 database's verdicts read after the upgrade."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import timedelta

import pytest

from antidrift.core.domain import Commitment, RuntimeState, WindowSample
from antidrift.core.drift_records import Episode, Exchange, Judgement, Rule, Source, Verdict, Window
from antidrift.store import opening as database
from antidrift.store.migrations import MIGRATIONS
from tests.fakes import START
from tests.support.store import committing

JUDGE_MIGRATION = next(m for m in MIGRATIONS if m[1].startswith("judge:"))


def commitment(cid: str) -> Commitment:
    return Commitment(cid, "Write", "Done", 600, START, START + timedelta(minutes=10))


@pytest.fixture
def db(tmp_path):
    s = committing(tmp_path / "antidrift.sqlite3")
    s.save(RuntimeState.ACTIVE, commitment("c1"))
    yield s
    s.close()


def test_a_verdict_keeps_who_decided_and_exactly_what_was_sent(db, tmp_path):
    sent = Exchange("ollama (llama3.2)", "firefox", None, '{"verdict": "unclear", "reason": "?"}')
    judged = Judgement(Verdict.UNCLEAR, "cannot tell", Source.JUDGE, sent)
    ruled = Judgement(Verdict.ON_TASK, "your rule: code is always on task", Source.RULE)
    db.save_judgement("c1", Window("firefox", "(excluded)"), judged)
    db.save_judgement("c1", Window("code", "a.py"), ruled)
    db.close()
    again = committing(tmp_path / "antidrift.sqlite3")
    try:
        assert again.judgements("c1") == {
            Window("firefox", "(excluded)"): judged,
            Window("code", "a.py"): ruled,
        }
    finally:
        again.close()


def test_a_later_verdict_replaces_the_window_s_row_whole(db):
    churn = Judgement(Verdict.OFF_TASK, "a new title", Source.CHURN)
    judged = Judgement(
        Verdict.ON_TASK, "docs", Source.JUDGE, Exchange("claude", "firefox", "docs", "{}")
    )
    db.save_judgement("c1", Window("firefox", "docs"), churn)
    db.save_judgement("c1", Window("firefox", "docs"), judged)
    assert db.judgements("c1") == {Window("firefox", "docs"): judged}
    db.save_judgement("c1", Window("firefox", "docs"), churn)
    assert db.judgements("c1")[Window("firefox", "docs")].exchange is None


def test_unclear_time_is_kept_with_the_figures(db):
    db.save_drift_summary("c1", 2, 0.5, 90.0)
    assert db.drift_summaries(["c1"]) == {"c1": (2, 0.5)}
    assert db.unclear_secs("c1") == 90.0
    assert db.unclear_secs("nope") == 0.0


def test_rules_are_added_listed_replaced_and_removed_and_survive_a_restart(db, tmp_path):
    first = db.add_rule("firefox", "", Verdict.ON_TASK)
    second = db.add_rule("firefox", "YouTube", Verdict.OFF_TASK)
    assert db.rules() == [first, second]
    replaced = db.add_rule("Firefox", "youtube", Verdict.ON_TASK)
    assert db.rules() == [first, replaced], "one rule per app and text"
    assert replaced.id not in (first.id, second.id)  # a rule of its own: a new id
    assert db.delete_rule(first.id) is True
    assert db.delete_rule(first.id) is False
    newest = db.add_rule("code", "", Verdict.ON_TASK)
    assert newest.id not in (first.id, second.id), "a removed rule's id is never reused"
    db.close()
    again = committing(tmp_path / "antidrift.sqlite3")
    try:
        assert again.rules() == [Rule(replaced.id, "Firefox", "youtube", Verdict.ON_TASK), newest]
    finally:
        again.close()


def test_a_rule_says_on_task_or_off_task_and_nothing_else(db, tmp_path):
    raw = sqlite3.connect(tmp_path / "antidrift.sqlite3")
    with pytest.raises(sqlite3.IntegrityError):
        raw.execute("INSERT INTO drift_rules (app, verdict) VALUES ('x', 'unclear')")
    raw.close()


def test_verdicts_of_a_0_3_database_are_read_after_the_upgrade(tmp_path, monkeypatch):
    path = tmp_path / "antidrift.sqlite3"
    older = [m for m in MIGRATIONS if m[0] < JUDGE_MIGRATION[0]]
    monkeypatch.setattr(database, "MIGRATIONS", older)
    committing(path).close()
    raw = sqlite3.connect(path)
    # The commitment as 0.3 wrote it (today's store writes columns later migrations add).
    raw.execute(
        "INSERT INTO commitments (id, next_action, success_condition, timebox_secs,"
        " started_at, deadline) VALUES ('old', 'Write', 'Written', 1500,"
        " '2026-01-01T09:00:00+00:00', '2026-01-01T09:25:00+00:00')"
    )
    raw.executemany(
        "INSERT INTO drift_judgements (commitment_id, app, title, on_task, reason)"
        " VALUES ('old', ?, ?, ?, ?)",
        [
            ("code", "a.py", 1, "the editor for it"),
            ("firefox", "feed", 0, "a feed"),
            ("firefox", "docs", 1, "you said this is on task"),
        ],
    )
    raw.execute(
        "INSERT INTO drift_summary (commitment_id, drift_count, on_task_share) VALUES"
        " ('old', 1, 0.5)"
    )
    raw.commit()
    raw.close()
    monkeypatch.setattr(database, "MIGRATIONS", MIGRATIONS)
    s = committing(path)
    try:
        assert s.judgements("old") == {
            Window("code", "a.py"): Judgement(Verdict.ON_TASK, "the editor for it"),
            Window("firefox", "feed"): Judgement(Verdict.OFF_TASK, "a feed"),
            Window("firefox", "docs"): Judgement(
                Verdict.ON_TASK, "you said this is on task", Source.YOU
            ),
        }
        assert s.drift_summaries(["old"]) == {"old": (1, 0.5)} and s.unclear_secs("old") == 0.0
        assert s.rules() == []
    finally:
        s.close()


def test_the_teeth_choice_and_what_they_did_survive_a_restart(tmp_path):
    path = tmp_path / "teeth.sqlite3"
    s = committing(path)
    toothed = replace(commitment("t1"), enforce="minimize")
    s.save(RuntimeState.ACTIVE, toothed)
    opened = Episode(1, START, START + timedelta(seconds=60), "firefox", "Cat videos", "videos")
    s.save_episode("t1", opened)
    put = replace(opened, enforced_at=START + timedelta(seconds=90), enforce_note="moved away")
    s.save_episode("t1", put)
    s.save_episode("t1", replace(put, ended_at=START + timedelta(seconds=95)))
    s.close()
    again = committing(path)
    try:
        assert again.load().commitment.enforce == "minimize"
        [episode] = again.episodes("t1")
        assert episode.enforced_at == START + timedelta(seconds=90)
        assert episode.enforce_note == "moved away" and episode.ended_at is not None
    finally:
        again.close()


def test_episodes_of_many_commitments_come_in_one_read_each_in_order(db):
    put = START + timedelta(seconds=90)
    for cid, count in (("a", 2), ("b", 0), ("c", 1)):
        db.save(RuntimeState.ACTIVE, commitment(cid))
        for n in range(count, 0, -1):  # saved out of order
            episode = Episode(n, START, START, "firefox", "Cat videos", "videos", enforced_at=put)
            db.save_episode(cid, episode)
    found = db.episodes_of(["a", "b", "c", "missing"])
    assert {cid: [e.number for e in eps] for cid, eps in found.items()} == {"a": [1, 2], "c": [1]}
    assert found["c"][0].enforced_at == put
    assert db.episodes("a") == found["a"] and db.episodes("b") == []


def test_a_sample_s_page_a_site_rule_and_the_site_sent_survive_a_restart(db, tmp_path):
    page = WindowSample("firefox", "A video", START, url="https://youtube.com/watch?v=1")
    db.add_sample("c1", replace(page, site="youtube.com"))
    db.add_sample("c1", WindowSample("code", "a.py", START + timedelta(seconds=5)))
    sent = Exchange("claude", "firefox", "A video", "{}", "youtube.com")
    judged = Judgement(Verdict.OFF_TASK, "v", Source.JUDGE, sent)
    db.save_judgement("c1", Window("firefox", "A video"), judged)
    site_rule = db.add_rule("", "", Verdict.OFF_TASK, "youtube.com")
    db.add_rule("firefox", "", Verdict.ON_TASK)
    # The same site again replaces its rule; the app's rule is another.
    again_rule = db.add_rule("", "", Verdict.ON_TASK, "youtube.com")
    db.close()
    again = committing(tmp_path / "antidrift.sqlite3")
    try:
        first, second = again.samples("c1")
        assert (first.url, first.site) == ("https://youtube.com/watch?v=1", "youtube.com")
        assert (second.url, second.site) == (None, None)
        (judged,) = again.judgements("c1").values()
        assert judged.exchange.site == "youtube.com"
        assert [(r.app, r.site, r.verdict) for r in again.rules()] == [
            ("firefox", "", Verdict.ON_TASK),
            ("", "youtube.com", Verdict.ON_TASK),
        ]
        assert again_rule.id != site_rule.id
    finally:
        again.close()
