#!/usr/bin/env bash
# Train one model: punct.bin.train from CONFIG on the data directory TRAIN, validated on
# VALID, into EXP-DIR/best.pt (log: EXP-DIR/log/train.log). Arguments after EXP-DIR go to the
# trainer (KEY=VALUE overrides, --state FILE). A finished model (EXP-DIR/.done) is kept
# unless --force true; a training stopped by --time-budget is not finished, and the same
# command goes on from where it stopped. Run from the recipe's top folder, after path.sh.
{
set -euo pipefail
cmd=local/run_local.sh   # how the job runs (cmd.sh's $train_cmd)
force=false              # true: train again even when EXP-DIR is finished
time_budget=""           # wall time the training may take (seconds, or 2h30m); empty: no limit
nproc=1                  # data-parallel ranks (torch.distributed.run) on this machine
needs=""                 # more files that must exist first (a warm start's model), space-separated
run_cmd=""               # the command that redoes this experiment, written to EXP-DIR/run.cmd
help_message="Usage: $0 [options] <config> <train-dir> <valid-dir> <exp-dir> [<trainer-argument>...]
 e.g.: $0 --cmd \"\$train_cmd\" conf/tbrnn.yaml data/quick/train data/quick/dev2012 exp/quick/tbrnn lr=0.001
Options: --cmd CMD, --force true|false, --time-budget T, --nproc N, --needs 'FILE...', --run-cmd CMD"
positional=true
. local/log.sh
. local/parse_options.sh
[ $# -ge 4 ] || usage_error
config=$1 train=$2 valid=$3 dir=$4
shift 4
name=${dir##*/}
[[ "$nproc" =~ ^[1-9][0-9]{0,3}$ ]] || die "--nproc must be an integer from 1 to 9999, got '$nproc'"
if [ -f "$dir/best.pt" ] && [ -f "$dir/.done" ] && [ "$force" != true ]; then
  log "train $name: $dir is finished; skipping"; exit 0
fi
# shellcheck disable=SC2086  # the files are words
need_trained "$name" $needs
need_files "train $name" "$config" "$train/text" "$valid/text"
not_busy "$dir/.train.lock" "a training"
mkdir -p "$dir/log"
[ -z "$run_cmd" ] || echo "$run_cmd" > "$dir/run.cmd"
trainer=(python -m punct.bin.train)
[ "$nproc" -eq 1 ] || trainer=(python -m torch.distributed.run --standalone --nproc_per_node "$nproc" -m punct.bin.train)
log "train $name ($config): $train -> $dir/best.pt; log: $dir/log/train.log"
$cmd "$dir/log/train.log" "${trainer[@]}" --config "$config" --train "$train" --valid "$valid" --exp "$dir" \
  "$@" ${time_budget:+--time-budget "$time_budget"} || fail_with_log "$dir/log/train.log" "training $name failed"
if [ -f "$dir/train_done.json" ]; then
  touch "$dir/.done"
else
  log "train $name: the time budget is spent before the schedule's end; rerun the same command to go on"
fi
exit
}
