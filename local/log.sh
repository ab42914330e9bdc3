# Logging helpers for the recipe's shell scripts.
# shellcheck shell=bash
log() { echo "$(date '+%Y-%m-%d %H:%M:%S') (${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]}) $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# Print the tail of a failed job's log and fail.
fail_with_log() {
  local logf=$1 err=""; shift
  # a punct command's own one-line error ("error: FILE:LINE: problem") leads, also when
  # torchrun's summary of the failed ranks comes after it
  [ -f "$logf" ] && err=$(grep -m1 '^error: ' "$logf" || true)
  log "ERROR: $*${err:+: ${err#error: }} (log: $logf); its last lines:"
  [ -f "$logf" ] && tail -n 20 "$logf" >&2
  exit 1
}
# up_to_date MARKER INPUT...: true when the done-marker MARKER exists and is newer than
# every INPUT (a decode made with an older best.pt is redone after more training)
up_to_date() {
  local marker=$1 input; shift
  [ -f "$marker" ] || return 1
  for input in "$@"; do [ "$marker" -nt "$input" ] || return 1; done
}
