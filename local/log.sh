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
# keep_old_log LOGF: a job about to write LOGF anew first moves an earlier LOGF (a killed or
# crashed run's, whose reason a rerun would otherwise overwrite) to LOGF.1, LOGF.1 to LOGF.2
# and so on; the last ${KEEP_LOGS:-5} are kept. A resumed training's log.1 holds its first epochs.
keep_old_log() {
  local logf=$1 i n=${KEEP_LOGS:-5}
  [ -e "$logf" ] || return 0
  for ((i = n - 1; i >= 1; i--)); do
    if [ -e "$logf.$i" ]; then mv -f "$logf.$i" "$logf.$((i + 1))" || return 1; fi
  done
  mv -f "$logf" "$logf.1"
}
