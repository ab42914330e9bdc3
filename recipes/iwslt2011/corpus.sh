# IWSLT2011 TED punctuation benchmark (test2011, dev2012) with TED talks as training
# text. Two training sets: train_2m matches the paper's 2.1M-word train2012 budget
# (Tilk and Alumäe 2016), train is all of ted/talks (about 4.8M words). Its sets and
# experiments (every lexical model of the papers): experiments.yaml.
# shellcheck shell=bash
prepare_data() {
  local corpus_dir=$1 out=$2 force=$3
  python recipes/iwslt2011/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" \
    --train-words 2100000 --train-name train_2m --force "$force"
  python recipes/iwslt2011/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" \
    --train-words 0 --train-name train --force "$force"
  # 200K words of the talks after train_2m: the training text's own style, held out from
  # train_2m (not from train), for comparing a 2.1M-word model's score there and on test2011
  python recipes/iwslt2011/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" --sets train \
    --skip-words 2100000 --train-words 200000 --train-name ted_heldout --force "$force"
  # 2.1M words of the talks punctuated most like the benchmark: the whole talks whose words per
  # sentence are nearest dev2012's (the validation set; 16.1 in train_2m, 14.5 in dev2012), the
  # talks of ted_heldout left out. recipes/iwslt2011_text measures what the sentence ends cost.
  python recipes/iwslt2011/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" --sets train \
    --train-words 2100000 --sentence-length "$out/dev2012" --exclude-talks "$out/ted_heldout" --train-name train_2m_sl \
    --force "$force"
}
