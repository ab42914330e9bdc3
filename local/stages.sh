# The steps of stages 6-9, one function each, shared by stage 7 (which trains, decodes and
# scores its models in one go) and the stage hooks. Sourced by run.sh after cmd.sh; they read
# run.sh's options ($force, $train_overrides, the trainer command ${trainer[@]}) and cmd.sh's
# $train_cmd and $decode_cmd. Finished outputs are skipped (.done) unless --force true.
# shellcheck shell=bash

# require STAGE NAME FILE...: fail unless every FILE (a model NAME needs) exists
require() {
  local st=$1 name=$2 f
  shift 2
  for f in "$@"; do
    [ -f "$f" ] || die "stage $st: $name needs $f: not found (train $(basename "$(dirname "$f")") first)"
  done
}

# train_model STAGE NAME CONFIG TRAIN VALID DIR RUNCMD [NEEDED...] -- [KEY=VALUE...]: train one
# model from CONFIG on the data directory TRAIN into DIR/best.pt, RUNCMD into DIR/run.cmd; the
# NEEDED files (a warm start's best.pt) must exist, KEY=VALUE are the experiment's overrides
train_model() {
  local st=$1 name=$2 config=$3 train=$4 valid=$5 dir=$6 cmd=$7 needed=()
  shift 7
  while [ $# -gt 0 ] && [ "$1" != -- ]; do needed+=("$1"); shift; done
  [ $# -eq 0 ] || shift
  if [ -f "$dir/best.pt" ] && [ -f "$dir/.done" ] && [ "$force" != true ]; then
    log "stage $st: train $name: $dir is finished; skipping"; return 0
  fi
  require "$st" "$name" ${needed[@]+"${needed[@]}"}
  not_busy "$dir/.train.lock" "a training"
  mkdir -p "$dir/log"
  echo "$cmd" > "$dir/run.cmd"
  log "stage $st: train $name ($config): $train -> $dir/best.pt; log: $dir/log/train.log"
  # shellcheck disable=SC2086  # the user's overrides are words
  $train_cmd "$dir/log/train.log" "${trainer[@]}" --config "$config" --train "$train" --valid "$valid" \
    --exp "$dir" "$@" $train_overrides ${time_budget:+--time-budget "$time_budget"} \
    || fail_with_log "$dir/log/train.log" "training $name failed"
  if [ -f "$dir/train_done.json" ]; then
    touch "$dir/.done"
  else  # --time-budget ended it before its schedule did: the next run goes on
    log "stage $st: train $name: the time budget is spent before the schedule's end; rerun the same command to go on"
  fi
}

# decode_model STAGE NAME DIR SETDIR INPUT... -- MODEL_OPTION...: decode the data directory
# SETDIR into DIR/decode_<set> with punct.bin.decode's MODEL_OPTIONs (--model FILE..., ensemble
# weights); redone when an INPUT (a model, a tuning set) is newer than the last decode
decode_model() {
  local st=$1 name=$2 dir=$3 setdir=$4 inputs=()
  shift 4
  while [ $# -gt 0 ] && [ "$1" != -- ]; do inputs+=("$1"); shift; done
  [ $# -eq 0 ] || shift
  local set=${setdir##*/}
  local out=$dir/decode_$set logf=$dir/log/decode_$set.log
  if up_to_date "$out/.done" "${inputs[@]}" "$setdir/text" && [ "$force" != true ]; then
    log "stage $st: decode $name on $set: $out is finished and newer than its model and data; skipping"; return 0
  fi
  # the log lives beside the decode directory, which the decoder replaces as a whole;
  # one torch thread: windows are small, and 2 threads were 30x slower on a busy machine
  not_busy "$dir/.decode_$set.lock" "a decoding into $out"
  log "stage $st: decode $name: $setdir -> $out; log: $logf"
  mkdir -p "$dir/log"
  $decode_cmd "$logf" python -m punct.bin.decode "$@" --data "$setdir" --out "$out" --no-score --threads 1 \
    || fail_with_log "$logf" "decoding $set with $name failed"
  touch "$out/.done"
}

# score_model STAGE NAME DIR SET REF: score DIR/decode_SET against the data directory REF
# (a hypothesis set is scored against its reference: the report has the WER and the transfer)
score_model() {
  local st=$1 name=$2 out=$3/decode_$4 ref=$5
  log "stage $st: score $name on $4: $ref vs $out -> $out/scoring/"
  python -m punct score "$ref" "$out" --out-dir "$out/scoring" > /dev/null || die "scoring $out failed"
}
