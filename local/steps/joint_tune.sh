#!/usr/bin/env bash
# Choose the parameters of Che et al.'s joint decision of a lexical and an acoustic model
# (best.pt files) on the data directory DEV (TRAIN: the acoustic model's training set, for
# the priors) -> OUT-DIR/joint.yaml (log: OUT-DIR/log/tune.log). Kept while newer than both
# models, unless --force true. Run from the recipe's top folder, after path.sh.
{
set -euo pipefail
cmd=local/run_local.sh   # how the job runs (cmd.sh's $decode_cmd)
force=false              # true: tune again even when OUT-DIR/joint.yaml is up to date
config=conf/joint.yaml   # the search space of the joint decision
help_message="Usage: $0 [options] <lexical-model> <acoustic-model> <dev-dir> <train-dir> <out-dir>
 e.g.: $0 exp/ljspeech/lexical/best.pt exp/ljspeech/ppe/best.pt data/ljspeech/dev data/ljspeech/train exp/ljspeech/joint
Options: --cmd CMD, --force true|false, --config FILE"
positional=true
. local/log.sh
. local/parse_options.sh
[ $# -eq 5 ] || usage_error
lexical=$1 acoustic=$2 dev=$3 train=$4 dir=$5
need_files "joint_tune" "$lexical" "$acoustic" "$dev/text" "$train/text" "$config"
if [ -f "$dir/joint.yaml" ] && up_to_date "$dir/.done" "$lexical" "$acoustic" && [ "$force" != true ]; then
  log "tune the joint decision: $dir/joint.yaml is finished; skipping"; exit 0
fi
mkdir -p "$dir/log"
log "tune the joint decision ($lexical + $acoustic) on $dev -> $dir/joint.yaml; log: $dir/log/tune.log"
$cmd "$dir/log/tune.log" python -m punct.bin.joint_tune --lexical "$lexical" --acoustic "$acoustic" \
  --dev "$dev" --train "$train" --config "$config" --out "$dir/joint.yaml" \
  || fail_with_log "$dir/log/tune.log" "tuning the joint decision failed"
touch "$dir/.done"
exit
}
