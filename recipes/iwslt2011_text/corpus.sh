# Is the training text what holds the 2.1M-word models below the papers? The papers trained
# on IWSLT's train2012; recipes/iwslt2011 trains on ted/ talks instead (train2012 could not be
# obtained). IWSLT's own text is at hand in one place: dev2012. This recipe trains the same
# T-BRNN on 148K words of it (its first half, iwslt_148k) and on as many words of ted/ talks
# (ted_148k, the first talks of train_2m), validates both on TED talks held out from train_2m
# (ted_heldout, which favours the ted/ model if anything) and tests both on test2011 and on
# dev2012's other half (dev2012_b, 147K words of IWSLT text the first model has not seen).
# Two seeds each. The same T-BRNN on twice as many words of ted/ (ted_296k) tells how many words
# of ted/ text one word of IWSLT's is worth, and on 148K words of the ted/ talks whose sentences
# are as long as dev2012's (ted_sl_148k) whether the sentence ends make the difference.
# Results: recipes/iwslt2011_text/results_notes.md.
# shellcheck shell=bash
train_sets="iwslt_148k ted_148k ted_148k_b ted_148k_c ted_296k ted_sl_148k ted_148k_new"
valid_set="ted_heldout"
test_sets="test2011 dev2012_b"
# the settings of the best 2.1M-word T-BRNN (tbrnn_2m_s50_b32_f1 in recipes/iwslt2011/models.sh);
# 148K words overfit within a few epochs, so patience ends the runs
tbrnn_text_args="slice_length=50 batch_size=32 select_by=f1 decode_window=200 max_epochs=15 patience=4 threads=1"
# warm starts (init_from) from recipes/iwslt2011's models, with their settings and a constant rate
# a fifth of each config's; max_epochs counts the source run's epochs too (9 and 4), so 3 more.
# select_by last: the model of the third epoch, whatever ted_heldout says (it would keep the
# start for the IWSLT runs: text of another kind than its own); the _src runs train no epoch, so
# their best.pt is the start, scored on this recipe's test sets
src=$exp_root/iwslt2011
drnn_src_args="init_from=$src/drnn_lwma_pre_2m_lin_drop1/best.pt model_args.dropout=0.1 average_best=0 threads=2"
drnn_ft_args="$drnn_src_args lr_schedule=constant lr=0.0002 select_by=last max_epochs=12"
tbrnn_src_args="init_from=$src/tbrnn_2m_s50_b32_f1_avg/best.pt slice_length=50 batch_size=32 decode_window=200 threads=2"
tbrnn_ft_args="$tbrnn_src_args lr=0.004 select_by=last max_epochs=7"
# name|config|train set|config overrides
experiments=(
  "tbrnn_iwslt_s1|conf/tbrnn.yaml|iwslt_148k|$tbrnn_text_args seed=1"
  "tbrnn_ted_s1|conf/tbrnn.yaml|ted_148k|$tbrnn_text_args seed=1"
  "tbrnn_iwslt_s2|conf/tbrnn.yaml|iwslt_148k|$tbrnn_text_args seed=2"
  "tbrnn_ted_s2|conf/tbrnn.yaml|ted_148k|$tbrnn_text_args seed=2"
  "tbrnn_ted2x_s1|conf/tbrnn.yaml|ted_296k|$tbrnn_text_args seed=1"
  "tbrnn_ted2x_s2|conf/tbrnn.yaml|ted_296k|$tbrnn_text_args seed=2"
  "tbrnn_tedsl_s1|conf/tbrnn.yaml|ted_sl_148k|$tbrnn_text_args seed=1"
  "tbrnn_tedsl_s2|conf/tbrnn.yaml|ted_sl_148k|$tbrnn_text_args seed=2"
  # which 148K words of ted/ moves a model as much as the seed does: the next talks, twice
  "tbrnn_ted_b_s1|conf/tbrnn.yaml|ted_148k_b|$tbrnn_text_args seed=1"
  "tbrnn_ted_c_s1|conf/tbrnn.yaml|ted_148k_c|$tbrnn_text_args seed=1"
)
# Is the text also what holds Kim's model below its paper? recipes/iwslt2011's DRNN-LWMA-pre (2.1M
# words of ted/) trained on for 3 more epochs at a fifth of its starting rate, once on IWSLT's 148K
# words and once on as many words of ted/ that it has not seen (ted_148k_new); _src is the model
# it starts from. The T-BRNN of that recipe the same way, to compare. They are left out while
# the models they start from are missing: ./run.sh --corpus iwslt2011 --models
# 'drnn_lwma_pre_2m_lin_drop1 tbrnn_2m_s50_b32_f1_avg' --stage 1 --stop-stage 6 trains them
# (about 3 h 10 min on both cores).
warm_starts() {  # warm_starts SOURCE_CHECKPOINT NAME... : say so when the source is missing
  local from=$1; shift
  [ -f "$from" ] && return 0
  log "corpus iwslt2011_text: $* left out: they train on from $from, which is not there yet"
  return 1
}
if warm_starts "$src/drnn_lwma_pre_2m_lin_drop1/best.pt" drnn_lwma_pre_src drnn_lwma_pre_ft_iwslt drnn_lwma_pre_ft_ted; then
  experiments+=(
    "drnn_lwma_pre_src|conf/drnn_lwma_pre.yaml|iwslt_148k|$drnn_src_args select_by=f1 max_epochs=9"
    "drnn_lwma_pre_ft_iwslt|conf/drnn_lwma_pre.yaml|iwslt_148k|$drnn_ft_args"
    "drnn_lwma_pre_ft_ted|conf/drnn_lwma_pre.yaml|ted_148k_new|$drnn_ft_args"
  )
fi
if warm_starts "$src/tbrnn_2m_s50_b32_f1_avg/best.pt" tbrnn_src tbrnn_ft_iwslt tbrnn_ft_ted; then
  experiments+=(
    "tbrnn_src|conf/tbrnn.yaml|iwslt_148k|$tbrnn_src_args select_by=f1 max_epochs=4"
    "tbrnn_ft_iwslt|conf/tbrnn.yaml|iwslt_148k|$tbrnn_ft_args"
    "tbrnn_ft_ted|conf/tbrnn.yaml|ted_148k_new|$tbrnn_ft_args"
  )
fi
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
