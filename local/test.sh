#!/usr/bin/env bash
# The test command: builds the environment if needed, then runs the whole test suite.
# Extra arguments go to pytest (e.g. local/test.sh -k score). pytest's exit code 5
# (no tests collected) is a failure here.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
local/setup_env.sh || exit 1
. ./path.sh
python -m pytest -q -p no:cacheprovider "$@" tests
rc=$?
if [ $rc -eq 5 ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
exit $rc
