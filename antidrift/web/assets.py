"""The stylesheets as served: each of static/*.css without its comments and runs of blank space.

style.css is the shared sheet; loop.css, day.css, insights.css and settings.css each hold one
area's rules, and a page links only the sheets it uses (base.html's "sheets" block: P5, each
page and all it loads <= 28 KiB gzip). Each file stays the commented source people edit; the
page loads a quarter less of it (issue 33, P5: 9.0 KiB gzip as written, 6.4 KiB as served).
Strings are kept as written, and a space stays wherever one separates two tokens (a
descendant selector, `0 8px`), so the rules are the same rules. Read and minified once per
app, at its first request (not at every start: issue 40); answered like any static file
(ETag, `no-cache`: a browser asks again and gets a 304 while it is unchanged)."""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

from flask import Flask, Response, abort, request

# The shared sheet first, then each area's (static/<name>.css).
SHEETS = ("style", "loop", "day", "insights", "settings")
# A string, a comment, blank space, or a run of anything else (a lone "/" is a division).
_TOKEN = re.compile(r""""(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|/\*.*?\*/|\s+|[^"'/\s]+|/""", re.S)
# No space is needed on either side of these.
_TIGHT = "{};"


def minify_css(text: str) -> str:
    """text without comments, blank runs as one space, and none beside a brace or `;`."""
    parts: list[str] = []
    gap = False
    for match in _TOKEN.finditer(text):
        token = match[0]
        if token.isspace() or token.startswith("/*"):
            gap = True
            continue
        if gap and parts and parts[-1][-1] not in _TIGHT and token[0] not in _TIGHT:
            parts.append(" ")
        gap = False
        parts.append(token)
    return "".join(parts)


def install(app: Flask, static_dir: Path) -> None:
    """Serve each /static/<sheet>.css minified (before the static route, which serves the rest),
    and /sheets/style+<area>+….css: the shared sheet and a page's area sheets, minified, as one
    answer (gzip compresses the areas' rules against the shared ones: 0.7 KiB less for "/"
    than two answers)."""

    @functools.cache
    def served(names: tuple[str, ...]) -> tuple[bytes, str]:
        text = "".join(minify_css((static_dir / f"{n}.css").read_text("utf-8")) for n in names)
        body = text.encode()
        return body, hashlib.sha256(body).hexdigest()[:32]

    def answer(names: tuple[str, ...]) -> Response:
        body, etag = served(names)
        response = Response(body, mimetype="text/css")
        response.cache_control.no_cache = True
        response.set_etag(etag)
        return response.make_conditional(request)

    def one(name: str):
        return lambda: answer((name,))

    for name in SHEETS:
        endpoint = "stylesheet" if name == "style" else f"stylesheet_{name}"
        app.add_url_rule(f"/static/{name}.css", endpoint, one(name), methods=["GET"])

    def stylesheets(names: str) -> Response:
        wanted = tuple(names.split("+"))
        # Only the shared sheet and then known area sheets, each once, in the sheets' order:
        # a bounded set of answers (each kept once built).
        known = set(wanted) <= set(SHEETS)
        if not known or wanted[0] != "style" or list(wanted) != sorted(set(wanted), key=_order):
            abort(404)
        return answer(wanted)

    app.add_url_rule("/sheets/<names>.css", "stylesheets", stylesheets, methods=["GET"])


def _order(name: str) -> int:
    return SHEETS.index(name)
