#!/usr/bin/env bash
# Score a decode against its reference: punct score REF-DIR DECODE-DIR into DECODE-DIR/scoring/
# (per-class precision, recall and F1, SER, and for a hypothesis set the WER and the transfer).
# Run from the recipe's top folder, after path.sh.
{
set -euo pipefail
help_message="Usage: $0 <ref-dir> <decode-dir>
 e.g.: $0 data/quick/test2011 exp/quick/tbrnn/decode_test2011"
positional=true
. local/log.sh
. local/parse_options.sh
[ $# -eq 2 ] || usage_error
ref=$1 out=$2
[ -f "$out/.done" ] || die "$out/.done not found: ${out%/*} has not been decoded on ${out##*/decode_} (run its decode first)"
log "score ${out%/*}: $ref vs $out -> $out/scoring/"
python -m punct score "$ref" "$out" --out-dir "$out/scoring" > /dev/null || die "scoring $out failed"
exit
}
