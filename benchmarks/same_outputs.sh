#!/usr/bin/env bash
# Whether a change of the code keeps what punct restore writes: the outputs of two checkouts
# (OLD, NEW: folders with this repository and its .venv) on the same inputs, compared byte for
# byte. Inputs: 3 Earnings-21 commercial Kaldi CTMs, each restored with the runtimes onnx, torch
# and onnx-int8, with --capitalize, as JSON and by an ensemble; and a data directory (test2011,
# prepared by stage 1 of recipes/iwslt2011). Prints one line per output, then the count of
# those that differ; exits 1 when any does.
#   benchmarks/same_outputs.sh OLD NEW [CORPUS_DIR] [TEST2011_DIR]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OLD NEW [CORPUS_DIR] [TEST2011_DIR]" >&2; exit 1; }
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd)
corpus=$(cd "${3:-../shared/data}" && pwd)
test2011=$(cd "${4:-data/iwslt2011/test2011}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
outputs() {  # outputs TREE OUT
  local c rt
  mkdir -p "$2"
  (
    cd "$1"
    # shellcheck disable=SC1091  # the tree's own environment
    . ./path.sh
    for c in 4320211 4330115 4344338; do
      for rt in onnx torch onnx-int8; do
        python -m punct restore "$corpus/earnings21/output/rev/kaldi/ctm/$c.ctm" -o "$2/$c.$rt.ctm" --runtime "$rt" -q
      done
      python -m punct restore "$corpus/earnings21/output/rev/kaldi/ctm/$c.ctm" -o "$2/$c.cap.ctm" --capitalize -q
      python -m punct restore "$corpus/earnings21/output/rev/kaldi/ctm/$c.ctm" -o "$2/$c.json" --output-format json -q
      python -m punct restore "$corpus/earnings21/output/rev/kaldi/ctm/$c.ctm" -o "$2/$c.ens.ctm" \
        --model models/default.pt --model models/default.pt --weights 2 1 -q
    done
    python -m punct restore "$test2011" -o "$2/test2011" --output-format datadir -q
  )
}
outputs "$old" "$work/old"
outputs "$new" "$work/new"
differ=0
while IFS= read -r f; do
  if cmp -s "$work/old/$f" "$work/new/$f"; then echo "same    $f"; else echo "differs $f"; differ=$((differ + 1)); fi
done < <(cd "$work/old" && find . -type f | sort)
echo "$differ outputs differ"
[ "$differ" -eq 0 ]
