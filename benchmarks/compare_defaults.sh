#!/usr/bin/env bash
# A default model against another, as a user gets them: each restores test2011 (words only),
# the two Earnings-21 Kaldi CTMs with pauses and from their words alone (SET_words: the set
# without its word_times, copied here from it each run) and LJ Speech's book as one text (read prose
# that no model here trains on; `recipes/ljspeech/prepare.py --passage true`, made here
# when missing) with `punct restore`, is scored with a
# bootstrap interval (the RESULTS.md rows EXP_ROOT/NAME/decode_SET), and the two are compared
# per set with `punct compare` (a paired bootstrap of 100-word blocks): EXP_ROOT/NAME/compare_SET.json.
#
#   benchmarks/compare_defaults.sh NEW.pt NAME OLD.pt OLD_NAME [EXP_ROOT]
#   e.g. benchmarks/compare_defaults.sh models/default.pt default_new OLD.pt default_old
#
# EXP_ROOT defaults to exp/earnings; the sets come from data/iwslt2011 and data/earnings
# (recipes/iwslt2011/prepare.py and ./run.sh --corpus earnings --stage 1 --stop-stage 5).
set -euo pipefail
cd "$(dirname "$0")/.."
. ./path.sh
[ $# -ge 4 ] || { echo "usage: $0 NEW.pt NAME OLD.pt OLD_NAME [EXP_ROOT]" >&2; exit 2; }
new=$1 name=$2 old=$3 old_name=$4 root=${5:-exp/earnings}
for m in "$new" "$old"; do [ -f "$m" ] || { echo "$0: $m: model file not found" >&2; exit 1; }; done
sets=(data/iwslt2011/test2011 data/earnings/e21_kaldi_rev data/earnings/e21_kaldi_libri
      data/earnings/e21_kaldi_rev_words data/earnings/e21_kaldi_libri_words data/ljspeech/book)
for s in data/earnings/e21_kaldi_rev data/earnings/e21_kaldi_libri; do  # the words alone: no word_times
  [ -f "$s/labels" ] || continue  # the check below names it
  rm -rf "${s}_words.tmp" && mkdir -p "${s}_words.tmp"  # copied anew: a rerun of stage 5 changes the labels
  cp "$s"/{text,labels,utt2spk,spk2utt} "${s}_words.tmp/" && rm -rf "${s}_words" && mv "${s}_words.tmp" "${s}_words"
done
[ -f data/ljspeech/book/labels ] || python recipes/ljspeech/prepare.py --corpus-dir "${CORPUS_DIR:-../shared/data}" \
  --out-dir data/ljspeech --splits book:1 --passage true -q
for s in "${sets[@]}"; do [ -f "$s/labels" ] || { echo "$0: $s/labels: not found (prepare the set first)" >&2; exit 1; }; done

restore_all() {  # MODEL NAME: restore and score every set into ROOT/NAME/decode_SET
  local model=$1 out=$root/$2 s set
  mkdir -p "$out"
  echo "punct restore data/iwslt2011/test2011|data/earnings/e21_kaldi_rev|data/earnings/e21_kaldi_libri|data/earnings/e21_kaldi_rev_words|data/earnings/e21_kaldi_libri_words|data/ljspeech/book -o $out/decode_SET --output-format datadir --model $model; punct score SETDIR $out/decode_SET --bootstrap 1000" > "$out/run.cmd"
  for s in "${sets[@]}"; do
    set=$(basename "$s")
    rm -rf "$out/decode_$set.tmp"  # what a killed run left
    python -m punct restore "$s" -o "$out/decode_$set.tmp" --output-format datadir --model "$model" -q
    rm -rf "$out/decode_$set" && mv "$out/decode_$set.tmp" "$out/decode_$set"
    python -m punct score "$s" "$out/decode_$set" --bootstrap 1000 --out-dir "$out/decode_$set/scoring" -q > /dev/null
  done
}
restore_all "$new" "$name"
restore_all "$old" "$old_name"
printf '%-22s %12s %12s %24s %7s %11s\n' set "$name" "$old_name" "difference [95%]" p question
for s in "${sets[@]}"; do
  set=$(basename "$s")
  python -m punct compare "$s" "$root/$name/decode_$set" "$root/$old_name/decode_$set" --json -q \
    > "$root/$name/compare_$set.json"
  python - "$root/$name/compare_$set.json" "$set" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))["metrics"]
o, q = c["overall"], c["QUESTION"]
print(f"{sys.argv[2]:<22} {o['a']:12.1f} {o['b']:12.1f} {o['delta']:+9.2f} [{o['low']:+.2f}, {o['high']:+.2f}] "
      f"{o['p_value']:7.3f} " + "/".join("-" if q.get(k) is None else f"{q[k]:.1f}" for k in "ab"))
EOF
done
