#!/usr/bin/env bash
# Carry the reference marks of REF-DIR (text, labels) onto the words of the hypothesis data
# directory HYP-DIR by edit-distance alignment (punct.bin.transfer): HYP-DIR/labels, and the
# statistics (words carried, moved, dropped; WER) in --report. A finished transfer is kept
# unless --force true. Run from the recipe's top folder, after path.sh.
{
set -euo pipefail
force=false              # true: transfer again even when finished
report=""                # the statistics' JSON file (default: HYP-DIR/transfer.json)
help_message="Usage: $0 [options] <ref-dir> <hyp-dir>
 e.g.: $0 data/ljspeech/test data/ljspeech/test_hyp
Options: --force true|false, --report FILE"
positional=true
. local/log.sh
. local/parse_options.sh
[ $# -eq 2 ] || usage_error
ref=$1 hyp=$2
report=${report:-$hyp/transfer.json}
need_files "transfer" "$ref/text" "$ref/labels" "$hyp/text"
if [ -f "$hyp/labels.done" ] && [ -f "$hyp/labels" ] && [ "$force" != true ]; then
  log "punctuation transfer onto ${hyp##*/} is finished; skipping"; exit 0
fi
log "punctuation transfer: $ref (text, labels) -> $hyp/labels; statistics: $report"
force_opt=()
[ "$force" = true ] && force_opt=(--force)
python -m punct.bin.transfer --ref "$ref" --hyp "$hyp" --report "$report" ${force_opt[@]+"${force_opt[@]}"} \
  || die "punctuation transfer onto $hyp failed"
exit
}
