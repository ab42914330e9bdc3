# Logging helpers for the recipe's shell scripts.
# shellcheck shell=bash
# _log_from D MESSAGE: one log line naming the script and line of the call D frames above
# _log_from's own caller (1: the caller of the function that calls _log_from)
_log_from() {
  local d=$1 src; shift
  src=${BASH_SOURCE[d + 1]-?}
  echo "$(date '+%Y-%m-%d %H:%M:%S') (${src##*/}:${BASH_LINENO[d]-?}) $*" >&2
}
log() { _log_from 1 "$@"; }
die() { _log_from 1 "ERROR: $*"; exit 1; }  # names die's caller, not this file
# Print the tail of a failed job's log and fail.
fail_with_log() {
  local logf=$1 err=""; shift
  # a punct command's own one-line error ("error: FILE:LINE: problem") leads, also when
  # torchrun's summary of the failed ranks comes after it
  [ -f "$logf" ] && err=$(grep -m1 '^error: ' "$logf" || true)
  _log_from 1 "ERROR: $*${err:+: ${err#error: }} (log: $logf); its last lines:"
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
# not_busy LOCK WHAT: fail when a punct command holds LOCK (the flock a training or decoding
# takes, punct.fsutil.exclusive), before a rerun would move that command's live log aside or
# torchrun would add its report of the refused ranks; the command's own lock still guards
# the outputs when no flock(1) is installed or the holder starts in between.
not_busy() {
  local lock=$1 what=$2
  [ -f "$lock" ] && command -v flock >/dev/null || return 0
  flock -n "$lock" true 2>/dev/null && return 0
  _log_from 1 "ERROR: $lock: $what is already running here ($(head -c 200 "$lock" | head -n 1)); wait for it to end, or stop it (kill -TERM its pid) and rerun"
  exit 1
}
# usage_error: a step called with the wrong number of arguments says so, prints its
# $help_message and fails
usage_error() {
  echo "$0: wrong number of arguments (see the usage below)" >&2
  printf '%s\n' "${help_message:-usage: see $0}" >&2
  exit 1
}
# need_files STEP FILE...: fail naming the first FILE (an input of STEP) that does not exist
need_files() {
  local step=$1 f
  shift
  for f in "$@"; do
    [ -e "$f" ] || { _log_from 1 "ERROR: $step: $f not found"; exit 1; }
  done
}
# need_trained NAME MODEL...: fail naming the first MODEL (a best.pt that experiment NAME
# trains on from or combines) that is not there yet, and the experiment that makes it
need_trained() {
  local name=$1 f
  shift
  for f in "$@"; do
    [ -f "$f" ] || { _log_from 1 "ERROR: $name needs $f: not found (train $(basename "$(dirname "$f")") first)"; exit 1; }
  done
}
