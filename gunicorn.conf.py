# gunicorn -c gunicorn.conf.py 'antidrift:create_app()'
# The same settings `antidrift serve` uses: one worker (state, timers and sockets live in
# one process), gthread with room for many open tabs, loopback only.
from antidrift import settings
from antidrift.server.serve import configure_logging, gunicorn_options

configure_logging()
try:
    _settings = settings.load()  # a refused setting: one line, before anything is bound
except settings.SettingsError as _exc:
    raise SystemExit(f"antidrift: {_exc}") from None
globals().update(gunicorn_options(_settings.host, _settings.port))
