#!/usr/bin/env bash
# The test command: builds the environment if needed, then runs the whole test suite.
# Extra arguments go to pytest (e.g. local/test.sh -k score). pytest's exit code 5
# (no tests collected) is a failure here.
# The body is one brace group ended by "exit": bash reads all of it before running any of
# it, so replacing or editing this file while it runs (hours, under a training) cannot
# change what this run does next.
{
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root" || exit 1
local/setup_env.sh || exit 1
. ./path.sh
python -m pytest -q -p no:cacheprovider "$@" tests
rc=$?
if [ $rc -eq 5 ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
exit $rc
}
