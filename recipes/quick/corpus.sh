# The quick default recipe (./run.sh with no options): small slices of the real
# IWSLT2011/TED corpora, so that the whole recipe runs in minutes on 2 cores.
# It uses the iwslt2011 preparation with word budgets; numbers from it are a
# smoke test of the pipeline, not a benchmark (see recipes/iwslt2011 for that).
# shellcheck shell=bash
train_sets="train"
valid_set="dev2012"
test_sets="test2011"
# name|config|train set|config overrides
experiments=(
  "tbrnn|conf/tbrnn.yaml|train|max_epochs=${quick_epochs:-2}"
)
prepare_data() {
  local corpus_dir=$1 out=$2 force=$3
  python recipes/iwslt2011/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" \
    --train-words "${quick_train_words:-150000}" --dev-words "${quick_dev_words:-10000}" \
    --test-words 0 --force "$force"
}
