#!/usr/bin/env bash
# Force-align the reference transcripts of a data directory (wav.scp, text) to its audio
# (punct.bin.align, conf/align.yaml): DATA-DIR/word_times, and EXP-DIR/{words.ctm,phones.ctm,
# textgrid/}; --nj jobs over parts of the data, logs EXP-DIR/log/align.JOB.log. A finished
# alignment is kept unless --force true. Run from the recipe's top folder, after path.sh.
{
set -euo pipefail
cmd=local/run_local.sh   # how the jobs run (cmd.sh's $decode_cmd)
nj=2                     # parallel jobs (fewer when the data has fewer recordings)
force=false              # true: align again even when finished
config=conf/align.yaml   # the aligner's settings
help_message="Usage: $0 [options] <data-dir> <exp-dir>
 e.g.: $0 --nj 2 data/ljspeech/train exp/ljspeech/align_train
Options: --cmd CMD, --nj N, --force true|false, --config FILE"
positional=true
. local/log.sh
. local/parse_options.sh
. local/parts.sh
[ $# -eq 2 ] || usage_error
data=$1 dir=$2
need_files "align" "$data/wav.scp" "$data/text" "$config"
if [ -f "$dir/.done" ] && [ -f "$data/word_times.done" ] && [ "$force" != true ]; then
  log "forced alignment of ${data##*/}: $dir is finished; skipping"; exit 0
fi
log "forced alignment: $data (wav.scp, text) -> $data/word_times, $dir/{words.ctm,phones.ctm,textgrid/}"
python -m punct.bin.align --config "$config" --prepare-lts --data "$data" || die "letter-to-sound preparation failed"
run_parts "$cmd" align punct.bin.align "$config" "$data" "$dir" "$nj" "$force"
exit
}
