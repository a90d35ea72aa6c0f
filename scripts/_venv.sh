# Sourced by scripts/run and scripts/test: a project venv in .venv, (re)installed only when
# pyproject.toml changed since the last install.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
extras=${1:-}
stamp=".venv/.antidrift-installed${extras:+-$extras}"
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  # The first run installs Flask, gunicorn and the rest into .venv: about a minute, said
  # first so it does not look stuck.
  echo "Setting up AntiDrift in .venv (the first run takes about a minute)…" >&2
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".${extras:+[$extras]}"
  echo "$want" >"$stamp"
fi
