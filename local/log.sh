# Logging helpers for the recipe's shell scripts.
# shellcheck shell=bash
log() { echo "$(date '+%Y-%m-%d %H:%M:%S') (${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]}) $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# Print the tail of a failed job's log and fail.
fail_with_log() {
  local logf=$1; shift
  log "ERROR: $* (log: $logf); its last lines:"
  [ -f "$logf" ] && tail -n 20 "$logf" >&2
  exit 1
}
