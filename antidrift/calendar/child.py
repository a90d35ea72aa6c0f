"""The child process that reads one calendar (`python -m antidrift.calendar.child`): a request
as JSON on stdin, the events as JSON on stdout. Its limits are set first, by itself: CPU time
(SIGXCPU ends it) and address space (a MemoryError, or the kernel's refusal), so any rule of
any frequency, count or BY-list ends in time, whatever the libraries do inside one call."""

from __future__ import annotations

import json
import resource
import sys


def _limit(cpu_secs: int, memory: int) -> None:
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = int(used.ru_utime + used.ru_stime) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (spent + cpu_secs, spent + cpu_secs + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))


def main() -> int:
    request = json.loads(sys.stdin.read())
    _limit(int(request["cpu"]), int(request["memory"]))
    from antidrift.calendar.ics import UnreadableCalendar, read_events
    from antidrift.core.isotime import from_iso, iso

    try:
        events, cut = read_events(
            request["text"],
            from_iso(request["start"]),
            from_iso(request["end"]),
            request["email"],
            int(request["limit"]),
        )
    except UnreadableCalendar as exc:
        answer: dict[str, object] = {"problem": exc.message}
    except MemoryError:
        answer = {"problem": "it needs more memory to read than a calendar may take"}
    else:
        answer = {
            "events": [[iso(e.starts_at), iso(e.ends_at), e.title] for e in events],
            "cut": cut,
        }
    sys.stdout.write(json.dumps(answer))  # ASCII: every control character escaped
    return 0


if __name__ == "__main__":
    sys.exit(main())
