"""A new database's schema in one script: what the numbered migrations 1..FRESH_VERSION
make, statement for statement as SQLite keeps it (`sqlite_master`'s SQL, in its order), and the
one row they put in (pure data, generated from them once).

A new database is made by this in one transaction (opening.migrate), not by 20 migrations in
20 (ALTER TABLE after ALTER TABLE): 1.4 ms where those took 5-6 ms of every first start, in
the start gate (issue 40, P6). The migrations stay the truth: an existing database is migrated
by them, a migration after FRESH_VERSION is applied after this, and
tests/unit/test_migrations_fresh.py holds a database made here the same as one the migrations
made: `sqlite_master` (type, name, table and SQL of each object, in order), its ids, the
migrations recorded and every row. Frozen like a migration: a change to the schema is a new
migration, never an edit here.
"""

from __future__ import annotations

FRESH_VERSION = 20  # the migrations this makes: 1..FRESH_VERSION

SCHEMA: tuple[str, ...] = (
    # runtime
    (
        "CREATE TABLE runtime (\n"
        "            id INTEGER PRIMARY KEY CHECK (id = 1),\n"
        "            state TEXT NOT NULL,\n"
        "            commitment_id TEXT REFERENCES commitments(id)\n"
        "        , draft TEXT, rhythm TEXT)"
    ),
    # commitments
    (
        "CREATE TABLE commitments (\n"
        "            id TEXT PRIMARY KEY,\n"
        "            next_action TEXT NOT NULL,\n"
        "            success_condition TEXT NOT NULL,\n"
        "            timebox_secs INTEGER NOT NULL,\n"
        "            started_at TEXT NOT NULL,\n"
        "            deadline TEXT NOT NULL,\n"
        "            ended_at TEXT,\n"
        "            outcome TEXT,\n"
        "            note TEXT NOT NULL DEFAULT ''\n"
        "        , extended_secs INTEGER NOT NULL DEFAULT 0, actual_secs INTEGER, task_source "
        "TEXT, task_id TEXT, task_title TEXT, task_url TEXT, enforce TEXT NOT NULL DEFAULT "
        "'off', paused_at TEXT, paused_secs INTEGER NOT NULL DEFAULT 0, written_back TEXT, "
        "away_secs INTEGER NOT NULL DEFAULT 0, device_id TEXT, device TEXT, day_item_id TEXT)"
    ),
    # commitments_by_end
    "CREATE INDEX commitments_by_end ON commitments(ended_at) WHERE outcome IS NOT NULL",
    # samples
    (
        "CREATE TABLE samples (\n"
        "            id INTEGER PRIMARY KEY,\n"
        "            commitment_id TEXT NOT NULL REFERENCES commitments(id),\n"
        "            app TEXT NOT NULL,\n"
        "            title TEXT NOT NULL,\n"
        "            at TEXT NOT NULL\n"
        "        , at_epoch REAL, url TEXT, site TEXT)"
    ),
    # samples_by_commitment
    "CREATE INDEX samples_by_commitment ON samples(commitment_id, at)",
    # drift_judgements
    (
        "CREATE TABLE drift_judgements (\n"
        "            commitment_id TEXT NOT NULL REFERENCES commitments(id),\n"
        "            app TEXT NOT NULL,\n"
        "            title TEXT NOT NULL,\n"
        "            on_task INTEGER NOT NULL,\n"
        "            reason TEXT NOT NULL, verdict TEXT, source TEXT NOT NULL DEFAULT 'judge', "
        "sent_to TEXT, sent_app TEXT, sent_title TEXT, answer TEXT, sent_site TEXT, stale "
        "INTEGER NOT NULL DEFAULT 0,\n"
        "            PRIMARY KEY (commitment_id, app, title)\n"
        "        )"
    ),
    # drift_episodes
    (
        "CREATE TABLE drift_episodes (\n"
        "            commitment_id TEXT NOT NULL REFERENCES commitments(id),\n"
        "            number INTEGER NOT NULL,\n"
        "            started_at TEXT NOT NULL,\n"
        "            nudged_at TEXT NOT NULL,\n"
        "            ended_at TEXT,\n"
        "            app TEXT NOT NULL,\n"
        "            title TEXT NOT NULL,\n"
        "            reason TEXT NOT NULL,\n"
        "            answer TEXT, enforced_at TEXT, enforce_note TEXT,\n"
        "            PRIMARY KEY (commitment_id, number)\n"
        "        )"
    ),
    # drift_summary
    (
        "CREATE TABLE drift_summary (\n"
        "            commitment_id TEXT PRIMARY KEY REFERENCES commitments(id),\n"
        "            drift_count INTEGER NOT NULL,\n"
        "            on_task_share REAL\n"
        "        , unclear_secs REAL NOT NULL DEFAULT 0)"
    ),
    # samples_by_commitment_epoch
    "CREATE INDEX samples_by_commitment_epoch ON samples(commitment_id, at_epoch, id)",
    # app_time
    (
        "CREATE TABLE app_time (\n"
        "            commitment_id TEXT NOT NULL REFERENCES commitments(id),\n"
        "            app TEXT NOT NULL,\n"
        "            secs REAL NOT NULL,\n"
        "            PRIMARY KEY (commitment_id, app)\n"
        "        ) WITHOUT ROWID"
    ),
    # sqlite_sequence, where migration 5 made it: SQLite makes it with the first AUTOINCREMENT
    # table (5's drift_rules, which 19 replaced) and keeps it after that table is gone
    "CREATE TABLE drift_rules (id INTEGER PRIMARY KEY AUTOINCREMENT)",
    "DROP TABLE drift_rules",
    # sync_outbox
    (
        "CREATE TABLE sync_outbox (\n"
        "            seq INTEGER PRIMARY KEY,\n"
        "            kind TEXT NOT NULL,\n"
        "            ref TEXT NOT NULL\n"
        "        )"
    ),
    # sync_seen
    (
        "CREATE TABLE sync_seen (\n"
        "            record_id TEXT PRIMARY KEY,\n"
        "            hlc TEXT NOT NULL\n"
        "        ) WITHOUT ROWID"
    ),
    # sync_segments
    (
        "CREATE TABLE sync_segments (\n"
        "            sha256 TEXT PRIMARY KEY,\n"
        "            device_id TEXT NOT NULL\n"
        "        , unread TEXT) WITHOUT ROWID"
    ),
    # day_items
    (
        "CREATE TABLE day_items (\n"
        "            id TEXT PRIMARY KEY,\n"
        "            day TEXT NOT NULL,\n"
        "            next_action TEXT NOT NULL,\n"
        "            success_condition TEXT NOT NULL DEFAULT '',\n"
        "            timebox_minutes INTEGER,\n"
        "            position INTEGER NOT NULL,\n"
        "            created_at TEXT NOT NULL,\n"
        "            started_at TEXT,\n"
        "            carried INTEGER NOT NULL DEFAULT 0\n"
        "        , order_key TEXT NOT NULL DEFAULT '')"
    ),
    # drift_rules
    (
        'CREATE TABLE "drift_rules" (\n'
        "            id TEXT PRIMARY KEY,\n"
        "            app TEXT NOT NULL,\n"
        "            title_contains TEXT NOT NULL DEFAULT '',\n"
        "            verdict TEXT NOT NULL CHECK (verdict IN ('on_task', 'off_task')),\n"
        "            created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,\n"
        "            site TEXT NOT NULL DEFAULT ''\n"
        "        )"
    ),
    # day_items_queued
    "CREATE INDEX day_items_queued ON day_items(order_key, id) WHERE started_at IS NULL",
    # commitments_by_day_item
    (
        "CREATE INDEX commitments_by_day_item ON commitments(day_item_id)\n"
        "            WHERE day_item_id IS NOT NULL"
    ),
    # sync_window_time
    (
        "CREATE TABLE sync_window_time (\n"
        "            commitment_id TEXT NOT NULL,\n"
        "            device_id TEXT NOT NULL,\n"
        "            device TEXT,\n"
        "            app TEXT NOT NULL,\n"
        "            title TEXT NOT NULL,\n"
        "            place TEXT NOT NULL,\n"
        "            secs REAL NOT NULL,\n"
        "            PRIMARY KEY (commitment_id, device_id, app, title, place)\n"
        "        ) WITHOUT ROWID"
    ),
    # device_evidence
    (
        "CREATE TABLE device_evidence (\n"
        "            commitment_id TEXT NOT NULL,\n"
        "            device_id TEXT NOT NULL,\n"
        "            device TEXT,\n"
        "            owner_id TEXT NOT NULL DEFAULT '',\n"
        "            drift_count INTEGER NOT NULL DEFAULT 0,\n"
        "            on_task_share REAL,\n"
        "            unclear_secs REAL NOT NULL DEFAULT 0,\n"
        "            judged_secs REAL NOT NULL DEFAULT 0,\n"
        "            samples INTEGER NOT NULL DEFAULT 0,\n"
        "            unsent INTEGER NOT NULL DEFAULT 0,\n"
        "            PRIMARY KEY (commitment_id, device_id)\n"
        "        ) WITHOUT ROWID"
    ),
    # device_windows
    (
        "CREATE TABLE device_windows (\n"
        "            commitment_id TEXT NOT NULL,\n"
        "            device_id TEXT NOT NULL,\n"
        "            app TEXT NOT NULL,\n"
        "            title TEXT NOT NULL,\n"
        "            place TEXT NOT NULL,\n"
        "            secs REAL NOT NULL,\n"
        "            PRIMARY KEY (commitment_id, device_id, app, title, place)\n"
        "        ) WITHOUT ROWID"
    ),
    # device_verdicts
    (
        "CREATE TABLE device_verdicts (\n"
        "            commitment_id TEXT NOT NULL,\n"
        "            device_id TEXT NOT NULL,\n"
        "            app TEXT NOT NULL,\n"
        "            title TEXT NOT NULL,\n"
        "            site TEXT NOT NULL DEFAULT '',\n"
        "            verdict TEXT NOT NULL,\n"
        "            reason TEXT NOT NULL,\n"
        "            source TEXT NOT NULL,\n"
        "            stale INTEGER NOT NULL DEFAULT 0,\n"
        "            PRIMARY KEY (commitment_id, device_id, app, title)\n"
        "        )"
    ),
    # device_episodes
    (
        "CREATE TABLE device_episodes (\n"
        "            commitment_id TEXT NOT NULL,\n"
        "            device_id TEXT NOT NULL,\n"
        "            number INTEGER NOT NULL,\n"
        "            started_at TEXT NOT NULL,\n"
        "            nudged_at TEXT NOT NULL,\n"
        "            ended_at TEXT,\n"
        "            app TEXT NOT NULL,\n"
        "            title TEXT NOT NULL,\n"
        "            reason TEXT NOT NULL,\n"
        "            answer TEXT,\n"
        "            PRIMARY KEY (commitment_id, device_id, number)\n"
        "        ) WITHOUT ROWID"
    ),
    # the one row migration 1 puts in
    "INSERT INTO runtime (id, state) VALUES (1, 'locked')",
)
