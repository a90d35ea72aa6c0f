# gunicorn -c gunicorn.conf.py 'antidrift:create_app()'
# The same settings `antidrift serve` uses: one worker (state, timers and sockets live in
# one process), gthread with room for many open tabs, loopback only.
import os

from antidrift.config import DEFAULT_HOST, DEFAULT_PORT
from antidrift.serve import configure_logging, gunicorn_options

configure_logging()
_options = gunicorn_options(
    os.environ.get("ANTIDRIFT_HOST", DEFAULT_HOST),
    int(os.environ.get("ANTIDRIFT_PORT", DEFAULT_PORT)),
)
globals().update(_options)
