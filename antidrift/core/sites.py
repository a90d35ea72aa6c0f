"""A browser tab's URL and its site (pure): what of a URL is kept, and what the judge, the
rules and churn key a page by.

A URL is private like a title: only http(s) URLs are kept (a file: URL names no site),
bounded, without their user:password, query and fragment (a query carries tokens and
searches); the site is the host, lower-case, without a leading `www.` (never a path, query or
fragment). A host label that mixes scripts (a Cyrillic "а" in "apple.com") is kept and shown
as punycode (`xn--…`), as browsers show it, so it never looks like the site it imitates;
Latin with Han, Hiragana or Katakana is allowed, as Chromium allows."""

from __future__ import annotations

import urllib.parse

from antidrift.core.domain import EXCLUDED_TITLE, ValidationError, redact_window

MAX_URL = 2000  # characters of a URL kept (longer ones are cut at the path, never the host)
_SCHEMES = ("http", "https")


def site_of(url: str | None) -> str | None:
    """The site of a URL ("https://www.YouTube.com/watch?v=1" → "youtube.com"); None when it
    has no host (about:blank, file:, not a URL)."""
    if not url:
        return None
    try:
        parts = urllib.parse.urlsplit(url.strip())
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme.lower() not in _SCHEMES or not host or not _fits_dns(host):
        return None
    host = shown_host(host.rstrip(".").lower())
    if host.startswith("www."):
        host = host[4:]
    return host if host and host.isprintable() and " " not in host else None


# The scripts told apart in a host (a letter of none of them counts as a script of its own);
# Common and Inherited (digits, the hyphen, marks) belong to any.
_SCRIPTS = (
    "Latin", "Cyrillic", "Greek", "Armenian", "Hebrew", "Arabic", "Georgian", "Cherokee",
    "Han", "Hiragana", "Katakana", "Hangul", "Bopomofo", "Thai", "Devanagari", "Ethiopic",
)  # fmt: skip
_WITH_LATIN = frozenset({"Latin", "Han", "Hiragana", "Katakana"})


def _fits_dns(host: str) -> bool:
    """At most 253 characters, labels of at most 63: what a host can be (and a bound on the
    work of showing it)."""
    return len(host) <= 253 and all(len(label) <= 63 for label in host.split("."))


def shown_host(host: str) -> str:
    """`host` with each label that mixes scripts in punycode ("аpple.com" → "xn--pple-43d.com")."""
    if host.isascii():
        return host
    return ".".join(_label(label) for label in host.split("."))


def _label(label: str) -> str:
    if label.isascii():
        return label
    scripts = _scripts(label)
    if len(scripts) < 2 or scripts <= _WITH_LATIN:
        return label
    try:
        return "xn--" + label.encode("punycode").decode("ascii")
    except UnicodeError:
        return label


def _scripts(label: str) -> set[str]:
    import regex  # here: only a host with a non-ASCII label needs it

    found = set()
    for char in label:
        if regex.match(r"[\p{Script=Common}\p{Script=Inherited}]", char):
            continue
        found.add(next((s for s in _SCRIPTS if regex.match(rf"\p{{Script={s}}}", char)), char))
    return found


def seen_url(url: str | None) -> str | None:
    """A URL as AntiDrift looks at it (what the exclude pattern matches): http(s) only, its
    host as shown (shown_host), no user:password or fragment, at most MAX_URL; None
    otherwise (a browser's own pages, data: and javascript: URLs say nothing of a site)."""
    if site_of(url) is None:
        return None
    parts = urllib.parse.urlsplit(url.strip())
    netloc = parts.netloc.rpartition("@")[2]  # credentials in a URL are never kept
    host, colon, port = netloc.rpartition(":") if "]" not in netloc else (netloc, "", "")
    if not colon or not port.isdigit():
        host, colon, port = netloc, "", ""
    netloc = shown_host(host.lower()) + colon + port
    text = urllib.parse.urlunsplit((parts.scheme.lower(), netloc, parts.path, parts.query, ""))
    return text[:MAX_URL] if text.isprintable() else None


def kept_url(url: str | None) -> str | None:
    """A URL as it may be stored: as seen (seen_url), without its query (it carries tokens
    and searches)."""
    seen = seen_url(url)
    return seen.partition("?")[0] if seen is not None else None


def validate_url(value: object) -> str | None:
    """A posted `url`: optional; text when given (a URL that names no site is dropped)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or "\x00" in value:
        raise ValidationError("url must be text.", "url")
    return seen_url(value)  # the session keeps it as kept_url, after the exclude pattern


def on_site(site: str | None, rule_site: str) -> bool:
    """Whether a page's site is the rule's site or one of its subdomains."""
    if not site or not rule_site:
        return False
    return site == rule_site or site.endswith("." + rule_site)


def redact_page(
    app: str, title: str, url: str | None, exclude
) -> tuple[str, str, str | None, str | None]:
    """A sample's (app, title, url, site) as it may be kept or sent. The exclude pattern
    matches the site and the URL too: a private page keeps neither, and its title is hidden;
    a private title (or app) hides the page's URL and site with it."""
    app, title = redact_window(app, title, exclude)
    seen = seen_url(url)  # matched with its query: a pattern may name a search
    site = site_of(seen)
    if EXCLUDED_TITLE in (app, title):
        return app, title, None, None
    if exclude is not None and seen is not None and (exclude.search(site) or exclude.search(seen)):
        return app, EXCLUDED_TITLE, None, None
    return app, title, kept_url(seen), site
