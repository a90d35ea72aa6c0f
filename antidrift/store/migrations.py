"""The database's numbered migrations, applied in order by store.SQLiteStore (pure data).

Each migration's SQL is a literal, frozen once shipped: it imports nothing of the app, so a
change elsewhere (a constant, a query the store runs today) can never change what an old
database is migrated by. tests/unit/test_migrations_frozen.py pins each one by hash.
"""

from __future__ import annotations

# Numbered migrations, applied in order and recorded in schema_migrations. Never edit one
# that has shipped: add the next.
MIGRATIONS: list[tuple[int, str, str]] = [
    (
        1,
        "initial",
        """
        CREATE TABLE runtime (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            state TEXT NOT NULL,
            commitment_id TEXT REFERENCES commitments(id)
        );
        CREATE TABLE commitments (
            id TEXT PRIMARY KEY,
            next_action TEXT NOT NULL,
            success_condition TEXT NOT NULL,
            timebox_secs INTEGER NOT NULL,
            started_at TEXT NOT NULL,
            deadline TEXT NOT NULL,
            ended_at TEXT,
            outcome TEXT,
            note TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX commitments_by_end ON commitments(ended_at) WHERE outcome IS NOT NULL;
        CREATE TABLE samples (
            id INTEGER PRIMARY KEY,
            commitment_id TEXT NOT NULL REFERENCES commitments(id),
            app TEXT NOT NULL,
            title TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX samples_by_commitment ON samples(commitment_id, at);
        INSERT INTO runtime (id, state) VALUES (1, 'locked');
        """,
    ),
    (
        2,
        "extended_secs",
        # Time added by /extend; timebox_secs stays what was planned.
        "ALTER TABLE commitments ADD COLUMN extended_secs INTEGER NOT NULL DEFAULT 0",
    ),
    (
        3,
        "drift guard",
        """
        CREATE TABLE drift_judgements (
            commitment_id TEXT NOT NULL REFERENCES commitments(id),
            app TEXT NOT NULL,
            title TEXT NOT NULL,
            on_task INTEGER NOT NULL,
            reason TEXT NOT NULL,
            PRIMARY KEY (commitment_id, app, title)
        );
        CREATE TABLE drift_episodes (
            commitment_id TEXT NOT NULL REFERENCES commitments(id),
            number INTEGER NOT NULL,
            started_at TEXT NOT NULL,
            nudged_at TEXT NOT NULL,
            ended_at TEXT,
            app TEXT NOT NULL,
            title TEXT NOT NULL,
            reason TEXT NOT NULL,
            answer TEXT,
            PRIMARY KEY (commitment_id, number)
        );
        CREATE TABLE drift_summary (
            commitment_id TEXT PRIMARY KEY REFERENCES commitments(id),
            drift_count INTEGER NOT NULL,
            on_task_share REAL
        );
        """,
    ),
    (
        4,
        "reflection",
        # Sample times as numbers, so time shares are summed in SQL without parsing text
        # (a review of 20,000 samples); each ended commitment's actual time and time per app
        # kept with it, so insights and the CSV read a few numbers per commitment. Time per
        # app as 0.3 defined it: a sample counts until the next one (or the end), at most 60 s.
        """
        ALTER TABLE commitments ADD COLUMN actual_secs INTEGER;
        UPDATE commitments SET actual_secs = MAX(0, CAST(ROUND(
            (julianday(ended_at) - julianday(started_at)) * 86400) AS INTEGER))
            WHERE ended_at IS NOT NULL AND outcome IS NOT NULL;
        ALTER TABLE samples ADD COLUMN at_epoch REAL;
        UPDATE samples SET at_epoch = (julianday(at) - 2440587.5) * 86400.0;
        CREATE INDEX samples_by_commitment_epoch ON samples(commitment_id, at_epoch, id);
        CREATE TABLE app_time (
            commitment_id TEXT NOT NULL REFERENCES commitments(id),
            app TEXT NOT NULL,
            secs REAL NOT NULL,
            PRIMARY KEY (commitment_id, app)
        ) WITHOUT ROWID;
        INSERT INTO app_time (commitment_id, app, secs)
        SELECT commitment_id, app, SUM(secs) FROM (
            SELECT s.commitment_id, s.app, MIN(MAX(COALESCE(
                LEAD(s.at_epoch) OVER (PARTITION BY s.commitment_id ORDER BY s.at_epoch, s.id),
                (julianday(c.ended_at) - 2440587.5) * 86400.0) - s.at_epoch, 0),
                60.0) AS secs
            FROM samples s JOIN commitments c ON c.id = s.commitment_id
            WHERE c.outcome IS NOT NULL)
        GROUP BY commitment_id, app
        """,
    ),
    (
        5,
        "judge: three answers, what was sent, standing rules",
        # A verdict is on_task, off_task or unclear (on_task stays, for older readers); who
        # decided it (the judge, the user, a rule, churn) and, for a judge call, what went to
        # which backend and what came back. Unclear time is counted apart. Rules hold for
        # every commitment; AUTOINCREMENT so a removed rule's id never names a new one.
        """
        ALTER TABLE drift_judgements ADD COLUMN verdict TEXT;
        UPDATE drift_judgements SET verdict = CASE on_task WHEN 1 THEN 'on_task'
            ELSE 'off_task' END;
        ALTER TABLE drift_judgements ADD COLUMN source TEXT NOT NULL DEFAULT 'judge';
        UPDATE drift_judgements SET source = 'you'
            WHERE app = '' OR reason = 'you said this is on task';
        ALTER TABLE drift_judgements ADD COLUMN sent_to TEXT;
        ALTER TABLE drift_judgements ADD COLUMN sent_app TEXT;
        ALTER TABLE drift_judgements ADD COLUMN sent_title TEXT;
        ALTER TABLE drift_judgements ADD COLUMN answer TEXT;
        ALTER TABLE drift_summary ADD COLUMN unclear_secs REAL NOT NULL DEFAULT 0;
        CREATE TABLE drift_rules (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            app TEXT NOT NULL,
            title_contains TEXT NOT NULL DEFAULT '',
            verdict TEXT NOT NULL CHECK (verdict IN ('on_task', 'off_task')),
            created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
        );
        """,
    ),
    (
        6,
        "drafts",
        # What the user types while planning is kept as they type (one JSON object), so a
        # reload or a restart never loses it.
        """
        ALTER TABLE runtime ADD COLUMN draft TEXT;
        """,
    ),
    (
        7,
        "task",
        # The task a commitment serves, from the user's own task list (antidrift/tasks/): its
        # source, its id there, its title as picked and where it can be opened.
        """
        ALTER TABLE commitments ADD COLUMN task_source TEXT;
        ALTER TABLE commitments ADD COLUMN task_id TEXT;
        ALTER TABLE commitments ADD COLUMN task_title TEXT;
        ALTER TABLE commitments ADD COLUMN task_url TEXT
        """,
    ),
    (
        8,
        "teeth",
        # Whether a commitment puts an ignored off-task window away ('minimize' or 'off'), and
        # per episode when it did (enforced_at) and how, or why it could not (enforce_note).
        """
        ALTER TABLE commitments ADD COLUMN enforce TEXT NOT NULL DEFAULT 'off';
        ALTER TABLE drift_episodes ADD COLUMN enforced_at TEXT;
        ALTER TABLE drift_episodes ADD COLUMN enforce_note TEXT;
        """,
    ),
    (
        9,
        "pause",
        # A pause in progress (since when, so a restart keeps it paused) and the seconds of
        # the pauses that ended (the history's paused time; actual time excludes it).
        """
        ALTER TABLE commitments ADD COLUMN paused_at TEXT;
        ALTER TABLE commitments ADD COLUMN paused_secs INTEGER NOT NULL DEFAULT 0;
        """,
    ),
    (
        10,
        "write-back",
        # What a commitment's one write-back to its task recorded ('note' or 'done'), so a
        # second press (another tab, a reload, the history) is refused, not written twice.
        """
        ALTER TABLE commitments ADD COLUMN written_back TEXT;
        """,
    ),
    (
        11,
        "sites",
        # A sample's browser tab (its URL, never an incognito one, and its site: the host)
        # and a standing rule about a site ("youtube.com is always off task"), with or
        # without an app; a judge call's site as it was sent.
        """
        ALTER TABLE samples ADD COLUMN url TEXT;
        ALTER TABLE samples ADD COLUMN site TEXT;
        ALTER TABLE drift_rules ADD COLUMN site TEXT NOT NULL DEFAULT '';
        ALTER TABLE drift_judgements ADD COLUMN sent_site TEXT;
        """,
    ),
    (
        12,
        "rhythm",
        # What of the last moves outlives a restart (one JSON object): the closure the locked
        # view acknowledges, a break under way, the Undo Finish window, "5 minutes left" said.
        """
        ALTER TABLE runtime ADD COLUMN rhythm TEXT;
        """,
    ),
    (
        13,
        "away",
        # Time away from the keyboard during a commitment (whole seconds); the absence itself
        # is a sample with an empty app and title (domain.AWAY_MARK), which no window has.
        """
        ALTER TABLE commitments ADD COLUMN away_secs INTEGER NOT NULL DEFAULT 0;
        """,
    ),
    (
        14,
        "set-aside verdicts",
        # A verdict judged against a next action the user has since changed: it still says
        # how the time before the change went (review, Insights, the week), but the guard
        # never takes it up again (it asks the judge about that window anew).
        """
        ALTER TABLE drift_judgements ADD COLUMN stale INTEGER NOT NULL DEFAULT 0;
        """,
    ),
    (
        15,
        "urls without their query",
        # A tab's URL is kept without its query (and fragment and user info, never kept): a
        # query carries tokens and searches. Those kept before lose it here, and so every
        # backup made from now on.
        """
        UPDATE samples SET url = substr(url, 1, instr(url, '?') - 1) WHERE instr(url, '?') > 0;
        """,
    ),
    (
        16,
        "every machine",
        # Other machines' ended commitments live beside this one's (device_id NULL: made here)
        # with the name their machine gave; what changed here waits in sync_outbox for the
        # sync folder (written in the change's own transaction); sync_seen keeps the newest
        # clock stamp taken per record (an import is idempotent, the later change wins), and
        # sync_segments the files imported whole.
        """
        ALTER TABLE commitments ADD COLUMN device_id TEXT;
        ALTER TABLE commitments ADD COLUMN device TEXT;
        CREATE TABLE sync_outbox (
            seq INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            ref TEXT NOT NULL
        );
        CREATE TABLE sync_seen (
            record_id TEXT PRIMARY KEY,
            hlc TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE sync_segments (
            sha256 TEXT PRIMARY KEY,
            device_id TEXT NOT NULL
        ) WITHOUT ROWID;
        """,
    ),
    (
        17,
        "the day",
        # The day's queue: items lined up for a day (its local date), each with a next action,
        # and a done-when and minutes that may wait until Plan it (empty, NULL); `position`
        # orders the queue; an item started becomes a commitment (started_at) and leaves it;
        # one not started on an earlier day is carried to today. A commitment started from an
        # item keeps its id.
        """
        CREATE TABLE day_items (
            id TEXT PRIMARY KEY,
            day TEXT NOT NULL,
            next_action TEXT NOT NULL,
            success_condition TEXT NOT NULL DEFAULT '',
            timebox_minutes INTEGER,
            position INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            started_at TEXT,
            carried INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX day_items_queued ON day_items(position) WHERE started_at IS NULL;
        ALTER TABLE commitments ADD COLUMN day_item_id TEXT;
        """,
    ),
    (
        18,
        "rules with global ids",
        # A standing rule is one on every machine (sync): its id becomes random text, made
        # once; the rules keep their order (rowid, in the order of their old ids).
        """
        CREATE TABLE drift_rules_global (
            id TEXT PRIMARY KEY,
            app TEXT NOT NULL,
            title_contains TEXT NOT NULL DEFAULT '',
            verdict TEXT NOT NULL CHECK (verdict IN ('on_task', 'off_task')),
            created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
            site TEXT NOT NULL DEFAULT ''
        );
        INSERT INTO drift_rules_global (id, app, title_contains, verdict, created_at, site)
        SELECT lower(hex(randomblob(16))), app, title_contains, verdict, created_at, site
        FROM drift_rules ORDER BY id;
        DROP TABLE drift_rules;
        ALTER TABLE drift_rules_global RENAME TO drift_rules;
        """,
    ),
    (
        19,
        "one day on every machine",
        # The day's queue is one queue on every machine (sync): each item gets an order key
        # (text read in order, then by id; a move changes one item's key alone), the items
        # kept so far in their order by position; an item a commitment was started from is
        # found from that commitment. Another machine's commitment keeps its time per window
        # (its samples are not here), by the machine it came from. A segment taken while it
        # held records of kinds this version does not know names them (`unread`): a later
        # version reads it again.
        """
        ALTER TABLE day_items ADD COLUMN order_key TEXT NOT NULL DEFAULT '';
        UPDATE day_items SET order_key = printf('%06d', position) || 'i';
        DROP INDEX day_items_queued;
        CREATE INDEX day_items_queued ON day_items(order_key, id) WHERE started_at IS NULL;
        CREATE INDEX commitments_by_day_item ON commitments(day_item_id)
            WHERE day_item_id IS NOT NULL;
        CREATE TABLE sync_window_time (
            commitment_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            device TEXT,
            app TEXT NOT NULL,
            title TEXT NOT NULL,
            place TEXT NOT NULL,
            secs REAL NOT NULL,
            PRIMARY KEY (commitment_id, device_id, app, title, place)
        ) WITHOUT ROWID;
        ALTER TABLE sync_segments ADD COLUMN unread TEXT;
        """,
    ),
    (
        20,
        "evidence by device",
        # Guard here too: the evidence a machine kept for another machine's commitment (the
        # time per window it saw, its verdicts and drift episodes), by that commitment's id
        # and the machine that watched ('' is this one) -- kept here while following, taken
        # from the others' records, never mixed with a commitment's own evidence and never
        # tied to the commitments table (the commitment may be another machine's, not here
        # yet, or gone). Each machine's figures are worked out from its rows when they are
        # written; judged_secs (on and off task) weighs its on-task share. `unsent`: this
        # machine's changed since it last went to the sync folder (a restart sends it).
        """
        CREATE TABLE device_evidence (
            commitment_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            device TEXT,
            owner_id TEXT NOT NULL DEFAULT '',
            drift_count INTEGER NOT NULL DEFAULT 0,
            on_task_share REAL,
            unclear_secs REAL NOT NULL DEFAULT 0,
            judged_secs REAL NOT NULL DEFAULT 0,
            samples INTEGER NOT NULL DEFAULT 0,
            unsent INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (commitment_id, device_id)
        ) WITHOUT ROWID;
        CREATE TABLE device_windows (
            commitment_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            app TEXT NOT NULL,
            title TEXT NOT NULL,
            place TEXT NOT NULL,
            secs REAL NOT NULL,
            PRIMARY KEY (commitment_id, device_id, app, title, place)
        ) WITHOUT ROWID;
        CREATE TABLE device_verdicts (
            commitment_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            app TEXT NOT NULL,
            title TEXT NOT NULL,
            site TEXT NOT NULL DEFAULT '',
            verdict TEXT NOT NULL,
            reason TEXT NOT NULL,
            source TEXT NOT NULL,
            stale INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (commitment_id, device_id, app, title)
        );
        CREATE TABLE device_episodes (
            commitment_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            number INTEGER NOT NULL,
            started_at TEXT NOT NULL,
            nudged_at TEXT NOT NULL,
            ended_at TEXT,
            app TEXT NOT NULL,
            title TEXT NOT NULL,
            reason TEXT NOT NULL,
            answer TEXT,
            PRIMARY KEY (commitment_id, device_id, number)
        ) WITHOUT ROWID;
        """,
    ),
]
