#!/usr/bin/env bash
# Recognize the audio of a data directory (wav.scp; punct.bin.asr_decode, conf/asr.yaml) into
# the hypothesis data directory HYP-DIR (text, word_times, word_conf, ctm), with the WER
# against the reference in EXP-DIR/scoring/; --nj jobs, logs EXP-DIR/log/decode.JOB.log. A
# finished decode is kept unless --force true. Run from the recipe's top folder, after path.sh.
{
set -euo pipefail
cmd=local/run_local.sh   # how the jobs run (cmd.sh's $decode_cmd)
nj=2                     # parallel jobs (fewer when the data has fewer recordings)
force=false              # true: decode again even when finished
config=conf/asr.yaml     # the recognizer's settings
help_message="Usage: $0 [options] <data-dir> <hyp-dir> <exp-dir>
 e.g.: $0 --nj 2 data/ljspeech/test data/ljspeech/test_hyp exp/ljspeech/asr_test
Options: --cmd CMD, --nj N, --force true|false, --config FILE"
positional=true
. local/log.sh
. local/parse_options.sh
. local/parts.sh
[ $# -eq 3 ] || usage_error
data=$1 hyp=$2 dir=$3
need_files "asr_decode" "$data/wav.scp" "$data/text" "$config"
if [ -f "$dir/.done" ] && [ -f "$hyp/.done" ] && [ "$force" != true ]; then
  log "ASR decoding of ${data##*/}: $hyp is finished; skipping"; exit 0
fi
log "ASR decoding: $data (wav.scp) -> $hyp/{text,word_times,word_conf,ctm}, WER in $dir/scoring/"
run_parts "$cmd" decode punct.bin.asr_decode "$config" "$data" "$dir" "$nj" "$force" --hyp-dir "$hyp"
exit
}
