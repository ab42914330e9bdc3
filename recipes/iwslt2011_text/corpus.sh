# Is the training text what holds the 2.1M-word models below the papers? The papers trained
# on IWSLT's train2012; recipes/iwslt2011 trains on ted/ talks instead (train2012 could not be
# obtained). IWSLT's own text is at hand in one place: dev2012. This recipe trains the same
# T-BRNN on 148K words of it (its first half, iwslt_148k) and on as many words of ted/ talks
# (ted_148k, the first talks of train_2m), validates both on TED talks held out from train_2m
# (ted_heldout, which favours the ted/ model if anything) and tests both on test2011 and on
# dev2012's other half (dev2012_b, 147K words of IWSLT text the first model has not seen).
# Two seeds each. Results: recipes/iwslt2011_text/results_notes.md.
# Its sets and experiments: experiments.yaml.
# shellcheck shell=bash
# the words of ted/ that train_2m and ted_heldout take together (both whole talks, in file-name order)
heldout_end() {
  python -c 'import json, sys; s = json.load(open(sys.argv[1])); print(s["words_skipped"] + s["words"])' \
    "$1/ted_heldout/stats.json"
}
prepare_data() {
  local corpus_dir=$1 out=$2 force=$3 words
  python recipes/iwslt2011/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" --sets test2011,dev2012 \
    --force "$force"
  python recipes/iwslt2011/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" --sets train \
    --skip-words 2100000 --train-words 200000 --train-name ted_heldout --force "$force"
  # dev2012 in halves: the whole utterances (talks) up to half its words, and the rest
  if [ "$force" = true ] || [ ! -f "$out/iwslt_148k/.done" ] || [ ! -f "$out/dev2012_b/.done" ]; then
    python -m punct.bin.datadir_tools subset --words 147895 "$out/dev2012" "$out/iwslt_148k"
    python -m punct.bin.datadir_tools subset --exclude "$out/iwslt_148k/text" "$out/dev2012" "$out/dev2012_b"
    # no test text in the training half (the figures go into its stats.json, for the RESULTS data table)
    python -m punct.bin.datadir_tools overlap --record "$out/iwslt_148k" "$out/test2011" "$out/dev2012_b" \
      "$out/ted_heldout"
  fi
  words=$(python -c 'import json, sys; print(json.load(open(sys.argv[1]))["words"])' "$out/iwslt_148k/stats.json")
  python recipes/iwslt2011/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" --sets train \
    --train-words "$words" --train-name ted_148k --force "$force"
  python recipes/iwslt2011/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" --sets train \
    --train-words $((2 * words)) --train-name ted_296k --force "$force"
  # the talks after ted_148k, and the talks after those: other samples of the same text
  python recipes/iwslt2011/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" --sets train \
    --skip-words "$words" --train-words "$words" --train-name ted_148k_b --force "$force"
  python recipes/iwslt2011/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" --sets train \
    --skip-words $((2 * words)) --train-words "$words" --train-name ted_148k_c --force "$force"
  # as many words of the talks after ted_heldout: text that train_2m does not hold (it ends where
  # ted_heldout starts), for the warm-start runs (*_ft_ted)
  python recipes/iwslt2011/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" --sets train \
    --skip-words "$(heldout_end "$out")" --train-words "$words" --train-name ted_148k_new --force "$force"
  # as many words of the talks whose words per sentence are nearest dev2012's (as
  # recipes/iwslt2011's train_2m_sl is made), ted_heldout's talks left out
  python recipes/iwslt2011/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" --sets train \
    --train-words "$words" --sentence-length "$out/dev2012" --exclude-talks "$out/ted_heldout" --train-name ted_sl_148k \
    --force "$force"
}
