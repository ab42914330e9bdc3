#!/usr/bin/env bash
# Decode a data directory with the joint decision (its stage 1 or 2; Che et al.) of a lexical
# and an acoustic model and the parameters JOINT-YAML (local/steps/joint_tune.sh) into
# DECODE-DIR; the system's description goes to DECODE-DIR/../config.yaml, its log to
# DECODE-DIR/../log/decode_<set>.log. Redone when a model or JOINT-YAML is newer than the last
# decode, or with --force true. Run from the recipe's top folder, after path.sh.
{
set -euo pipefail
cmd=local/run_local.sh   # how the job runs (cmd.sh's $decode_cmd)
force=false              # true: decode again even when DECODE-DIR is up to date
stage=2                  # 1: the sentence boundaries both models support; 2: and those inside long segments
help_message="Usage: $0 [options] <lexical-model> <acoustic-model> <joint-yaml> <data-dir> <decode-dir>
 e.g.: $0 --stage 2 exp/ljspeech/lexical/best.pt exp/ljspeech/ppe/best.pt exp/ljspeech/joint/joint.yaml data/ljspeech/test exp/ljspeech/joint2/decode_test
Options: --cmd CMD, --force true|false, --stage 1|2"
positional=true
. local/log.sh
. local/parse_options.sh
[ $# -eq 5 ] || usage_error
lexical=$1 acoustic=$2 config=$3 data=$4 out=$5
[[ "$stage" =~ ^[12]$ ]] || die "--stage must be 1 or 2, got '$stage'"
need_files "joint_decode" "$lexical" "$acoustic" "$config" "$data/text"
set=${data##*/} dir=$(dirname "$out")
logf=$dir/log/decode_$set.log
mkdir -p "$dir/log"
printf 'model: joint%s\nlexical: %s\nacoustic: %s\njoint_config: %s\n' "$stage" "$lexical" "$acoustic" "$config" \
  > "$dir/config.yaml"
if up_to_date "$out/.done" "$lexical" "$acoustic" "$config" && [ "$force" != true ]; then
  log "joint stage $stage on $set: $out is finished and newer than its models; skipping"; exit 0
fi
log "joint stage $stage ($lexical + $acoustic): $data -> $out; log: $logf"
$cmd "$logf" python -m punct.bin.joint_decode --lexical "$lexical" --acoustic "$acoustic" \
  --config "$config" --stage "$stage" --data "$data" --out "$out" \
  || fail_with_log "$logf" "joint decoding of $set failed"
touch "$out/.done"
exit
}
