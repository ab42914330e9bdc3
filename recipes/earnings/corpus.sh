# Earnings calls: lexical models trained on TED text and on Earnings-22 references
# (spontaneous speech), tuned on held-out Earnings-22 calls, and tested on the 33
# Earnings-21 calls: on the reference words, and on two real Kaldi CTMs (the public
# LibriSpeech model, ~49% WER, and a commercial Kaldi model, ~13% WER) with the
# reference marks carried onto the hypothesis words by edit distance (stage 5).
# The commercial engines' own punctuation on the same calls is scored with the same
# scorer (stage 9), so RESULTS.md puts punct beside them. Stage 4 computes pause
# features from the word times (Earnings-22 alignments, the Kaldi CTMs); stage 7
# trains the acoustic and fusion models on them (two-stage TA-BRNN/TA-LSTM over the
# lexical models of stage 6, T-LSTM-p, Che et al.'s Pause model and joint decision)
# and decodes and scores them on the Kaldi CTMs. See recipes/earnings/README.md.
# Its sets and experiments: experiments.yaml.
# shellcheck shell=bash
hyp_sets="e21_kaldi_libri e21_kaldi_rev"
engines="amazon google microsoft speechmatics"

prepare_data() {
  local corpus_dir=$1 out=$2 force=$3
  # TED talks tokenized as for IWSLT2011 (all of ted/), re-spelled like ASR output below
  python recipes/iwslt2011/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" \
    --sets train --train-name ted_iwslt --train-words "${earnings_ted_words:-0}" --force "$force"
  python recipes/earnings/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" \
    --ted-dir "$out/ted_iwslt" --max-calls "${earnings_max_calls:-0}" --force "$force"
}

# stage 5: the reference marks onto the Kaldi hypotheses
corpus_transfer() {
  local data=$1 force=$3 set force_opt=()
  [ "$force" = true ] && force_opt=(--force)
  for set in $hyp_sets; do
    log "stage 5: punctuation transfer: $data/e21_ref -> $data/$set/labels"
    python -m punct.bin.transfer --ref "$data/e21_ref" --hyp "$data/$set" \
      --report "$data/$set/transfer.json" "${force_opt[@]}" \
      || die "punctuation transfer onto $data/$set failed"
  done
}

# stage 9: the engines' own punctuation, scored like punct's output
corpus_score_others() {
  local data=$1 exp=$2 force=$3 e out
  for e in $engines; do
    out=$exp/$e/decode_e21_$e
    mkdir -p "$out"
    echo "./run.sh --corpus earnings --stage 9 --stop-stage 9" > "$exp/$e/run.cmd"
    log "stage 9: score $e's own punctuation: $data/e21_ref vs $data/e21_$e -> $out/scoring/"
    python -m punct score "$data/e21_ref" "$data/e21_$e" --out-dir "$out/scoring" > /dev/null \
      || die "scoring $e failed"
  done  # the hypothesis WER of our alignment, cross-checked by NIST sclite on the shortest call
  # (sclite needs about 10 minutes for one hour-long segment of 2,700 words)
  local set utt
  utt=$(awk '{print NF, $1}' "$data/e21_ref/text" | sort -n | head -n 1 | cut -d' ' -f2)
  # shellcheck disable=SC2043  # one hypothesis set now; the loop takes more
  for set in e21_kaldi_rev; do
    out=$exp/wer_$set
    if [ -f "$out/wer.json" ] && [ "$force" != true ]; then
      log "stage 9: $out/wer.json exists; skipping the sclite cross-check (--force true to redo)"
      continue
    fi
    log "stage 9: WER of $set on call $utt, punct.scoring.score and sclite -> $out/wer.json"
    mkdir -p "$out"
    echo "python -m punct.bin.wer --ref $data/e21_ref --hyp $data/$set --utt $utt --out-dir $out" > "$out/run.cmd"
    python -m punct.bin.wer --ref "$data/e21_ref" --hyp "$data/$set" --utt "$utt" --out-dir "$out" \
      || die "WER cross-check of $set failed"
  done
}

# stage 4: per-word pause features from the word times (speaker changes from word_speakers);
# Earnings has no audio, so no pitch or energy (PPE runs on LJ Speech in stage 7)
corpus_features() {
  local data=$1 force=$4 set force_opt=()
  [ "$force" = true ] && force_opt=(--force)
  for set in e22_train e22_dev $hyp_sets; do
    log "stage 4: pause features: $data/$set/word_times -> $data/$set/pause.{ark,scp,names}"
    python -m punct.bin.pause_feats --data "$data/$set" "${force_opt[@]}" \
      || die "pause features of $data/$set failed"
  done
  log "stage 4: pitch and energy: the Earnings corpora come without audio; nothing to do"
}

# stage 7, experiment ppe: PPE needs pitch and energy, so audio: Pause and PPE on LJ Speech
# (local/acoustic.sh) when its stages 1-5 are done, with the joint decision of LEXICAL (the
# default's best.pt) and PPE; RUNCMD goes into the run.cmd of each
corpus_ppe() {
  local data=$1 exp=$2 force=$3 cmd=$4 lexical=$5
  local lj=${data%/*}/ljspeech
  if [ -f "$lj/train/prosody.done" ] && [ -f "$lj/dev/prosody.done" ] && [ -f "$lj/test/prosody.done" ]; then
    ljspeech_prosody "$lj" "${exp%/*}/ljspeech" "$cmd" "$force" "$lexical"
  else
    log "stage 7: PPE (pause, pitch, energy) needs audio; Earnings has none and $lj has no prosody features:" \
      "run ./run.sh --corpus ljspeech --stop-stage 5 (same --data-root), then this stage again"
  fi
}

# stage 6, experiment teacher_posteriors: the accurate tier's posteriors (marks and case) on
# the distillation set, the feature set 'teacher' that the default is distilled from
# (distill_from: teacher). Resumable by chunks; skipped when done unless FORCE.
corpus_teacher_posteriors() {
  local data=$1 exp=$2 force=$3 cmd=$4 teacher=$5
  local out=$exp/teacher_posteriors force_opt=()
  [ "$force" = true ] && force_opt=(--force)
  [ -f "$data/distill/text" ] || die "stage 6: $data/distill/text not found: run stage 1 (it prepares the set 'distill')"
  mkdir -p "$out/log"
  echo "$cmd" > "$out/run.cmd"
  log "stage 6: posteriors of $teacher on $data/distill -> $data/distill/teacher.scp; log: $out/log/posteriors.log"
  $train_cmd "$out/log/posteriors.log" python -m punct.bin.posteriors --model "$teacher" --data "$data/distill" \
    --name teacher "${force_opt[@]}" || fail_with_log "$out/log/posteriors.log" "the teacher's posteriors failed"
}
