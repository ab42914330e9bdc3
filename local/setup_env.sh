#!/usr/bin/env bash
# Build the recipe's environment if it is missing or out of date: Debian packages
# (with apt-get, when missing and we are root), then a .venv with the pinned
# requirements and punct itself (editable, so `punct` is on the venv's PATH).
# Safe to run again: it does nothing when the stamp matches requirements.txt.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
. local/log.sh

# Debian packages the recipes use (none is needed by the text-only recipes yet).
apt_packages=${PUNCT_APT_PACKAGES:-}
missing=()
for p in $apt_packages; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    log "installing Debian packages: ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    log "WARNING: missing Debian packages (${missing[*]}); run as root or install them with apt-get"
  fi
fi

python=${PYTHON:-python3}
stamp=.venv/.punct-stamp
want="$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)"
if [ -x .venv/bin/python ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
log "setting up .venv (pinned requirements, torch CPU build); this takes a few minutes the first time"
[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e . 2>/dev/null \
  || .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -e .
.venv/bin/python -c "import torch, numpy, yaml, kaldiio; assert torch.__version__.startswith('2.13.0'), torch.__version__"
echo "$want" > "$stamp"
log "environment ready: $root/.venv"
