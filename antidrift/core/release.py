"""The release this is: the installed distribution's version, as `antidrift --version`, the
page's footer and the command line's User-Agent give it."""

from __future__ import annotations

import functools
from importlib import metadata


@functools.cache  # it reads every installed package's metadata: once a process, when asked
def version() -> str:
    """The installed distribution's version (pyproject's), or 'unknown' from a bare tree."""
    try:
        return metadata.version("antidrift")
    except metadata.PackageNotFoundError:
        return "unknown"
