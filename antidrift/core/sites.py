"""A browser tab's URL and its site (pure): what of a URL is kept, and what the judge, the
rules and churn key a page by.

A URL is private like a title: only http(s) URLs are kept (a file: URL names no site),
bounded, without their user:password; the site is the host, lower-case, without a leading
`www.` (never a path, query or fragment)."""

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
    if parts.scheme.lower() not in _SCHEMES or not host:
        return None
    host = host.rstrip(".").lower()
    if host.startswith("www."):
        host = host[4:]
    return host if host and host.isprintable() and " " not in host else None


def kept_url(url: str | None) -> str | None:
    """A URL as it may be stored: http(s) only, no user:password, at most MAX_URL; None
    otherwise (a browser's own pages, data: and javascript: URLs say nothing of a site)."""
    if site_of(url) is None:
        return None
    parts = urllib.parse.urlsplit(url.strip())
    netloc = parts.netloc.rpartition("@")[2]  # credentials in a URL are never kept
    text = urllib.parse.urlunsplit((parts.scheme.lower(), netloc, parts.path, parts.query, ""))
    return text[:MAX_URL] if text.isprintable() else None


def validate_url(value: object) -> str | None:
    """A posted `url`: optional; text when given (a URL that names no site is dropped)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or "\x00" in value:
        raise ValidationError("url must be text.", "url")
    return kept_url(value)


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
    url = kept_url(url)
    site = site_of(url)
    if EXCLUDED_TITLE in (app, title):
        return app, title, None, None
    if exclude is not None and url is not None and (exclude.search(site) or exclude.search(url)):
        return app, EXCLUDED_TITLE, None, None
    return app, title, url, site
