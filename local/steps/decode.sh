#!/usr/bin/env bash
# Decode a data directory with punct.bin.decode into DECODE-DIR (its labels and text, a data
# directory); the arguments after DECODE-DIR name the model (--model FILE, more than one for
# an ensemble, with its --weights/--bias/--tune-*-on options). The log is
# DECODE-DIR/../log/decode_<set>.log. A finished decode (DECODE-DIR/.done) is redone only
# when one of --inputs or the data's text is newer than it, or with --force true.
# Run from the recipe's top folder, after path.sh.
{
set -euo pipefail
cmd=local/run_local.sh   # how the job runs (cmd.sh's $decode_cmd)
force=false              # true: decode again even when DECODE-DIR is up to date
inputs=""                # the files the decode reads (models, a tuning set): each must exist
threads=1                # torch threads: windows are small; 2 threads were 30x slower on a busy machine
help_message="Usage: $0 [options] <data-dir> <decode-dir> <decoder-argument>...
 e.g.: $0 --inputs exp/quick/tbrnn/best.pt data/quick/test2011 exp/quick/tbrnn/decode_test2011 --model exp/quick/tbrnn/best.pt
Options: --cmd CMD, --force true|false, --inputs 'FILE...', --threads N"
positional=true
. local/log.sh
. local/parse_options.sh
[ $# -ge 3 ] || usage_error
data=$1 out=$2
shift 2
set=${data##*/} dir=$(dirname "$out")
# shellcheck disable=SC2086  # the inputs are words
need_files "decode $set" "$data/text" $inputs
logf=$dir/log/decode_$set.log
# shellcheck disable=SC2086
if up_to_date "$out/.done" $inputs "$data/text" && [ "$force" != true ]; then
  log "decode ${dir##*/} on $set: $out is finished and newer than its model and data; skipping"; exit 0
fi
# the log lives beside the decode directory, which the decoder replaces as a whole
not_busy "$dir/.decode_$set.lock" "a decoding into $out"
log "decode ${dir##*/}: $data -> $out; log: $logf"
mkdir -p "$dir/log"
$cmd "$logf" python -m punct.bin.decode "$@" --data "$data" --out "$out" --no-score --threads "$threads" \
  || fail_with_log "$logf" "decoding $set with ${dir##*/} failed"
touch "$out/.done"
exit
}
