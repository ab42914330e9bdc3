# Stage 7's joint decision (Che et al.) and the prosodic models on LJ Speech. Sourced by
# run.sh after local/stages.sh; every input comes as an argument, the commands run through
# cmd.sh's $decode_cmd. A finished output is skipped unless FORCE is true.
# shellcheck shell=bash

# joint_tune LEXICAL ACOUSTIC DEV TRAIN DIR FORCE: choose the joint decision's parameters of two
# models (best.pt files) on the data directory DEV -> DIR/joint.yaml
joint_tune() {
  local lexical=$1 acoustic=$2 dev=$3 train=$4 dir=$5 force=$6
  if [ -f "$dir/joint.yaml" ] && up_to_date "$dir/.done" "$lexical" "$acoustic" && [ "$force" != true ]; then
    log "stage 7: tune the joint decision: $dir/joint.yaml is finished; skipping"; return 0
  fi
  mkdir -p "$dir/log"
  log "stage 7: tune the joint decision ($lexical + $acoustic) on $dev -> $dir/joint.yaml; log: $dir/log/tune.log"
  $decode_cmd "$dir/log/tune.log" python -m punct.bin.joint_tune --lexical "$lexical" --acoustic "$acoustic" \
    --dev "$dev" --train "$train" --config conf/joint.yaml --out "$dir/joint.yaml" \
    || fail_with_log "$dir/log/tune.log" "tuning the joint decision failed"
  touch "$dir/.done"
}

# joint_decode STAGE LEXICAL ACOUSTIC CONFIG DIR SETDIR RUNCMD FORCE: the joint decision (its
# stage 1 or 2) of two models on the data directory SETDIR into DIR/decode_<set>
joint_decode() {
  local st=$1 lexical=$2 acoustic=$3 config=$4 dir=$5 setdir=$6 cmd=$7 force=$8
  local set=${setdir##*/}
  local out=$dir/decode_$set logf=$dir/log/decode_$set.log
  mkdir -p "$dir/log"
  echo "$cmd" > "$dir/run.cmd"
  printf 'model: joint%s\nlexical: %s\nacoustic: %s\njoint_config: %s\n' "$st" "$lexical" "$acoustic" "$config" \
    > "$dir/config.yaml"
  if up_to_date "$out/.done" "$lexical" "$acoustic" "$config" && [ "$force" != true ]; then
    log "stage 7: joint stage $st on $set: $out is finished and newer than its models; skipping"; return 0
  fi
  log "stage 7: joint stage $st ($lexical + $acoustic): $setdir -> $out; log: $logf"
  $decode_cmd "$logf" python -m punct.bin.joint_decode --lexical "$lexical" --acoustic "$acoustic" \
    --config "$config" --stage "$st" --data "$setdir" --out "$out" \
    || fail_with_log "$logf" "joint decoding of $set failed"
  touch "$out/.done"
}

# ljspeech_prosody LJDATA LJEXP RUNCMD FORCE [LEXICAL]: the prosodic models on LJ Speech, the
# corpus with audio (pitch and energy): Pause and PPE trained on train (validated on dev),
# decoded and scored on test and test_hyp; with a lexical model LEXICAL (a best.pt), that model
# alone and its joint decision with PPE (tuned on dev). Needs LJ Speech's stages 1-5.
ljspeech_prosody() {
  local lj=$1 ljexp=$2 cmd=$3 force=$4 lexical=${5:-} set ref model tag st
  for model in pause ppe; do
    train_model 7 "$model" "conf/che_$model.yaml" "$lj/train" "$lj/dev" "$ljexp/$model" "$cmd" --
    for set in test test_hyp; do
      ref=$lj/${set%_hyp}
      decode_model 7 "$model" "$ljexp/$model" "$lj/$set" "$ljexp/$model/best.pt" -- --model "$ljexp/$model/best.pt"
      score_model 7 "$model" "$ljexp/$model" "$set" "$ref"
    done
  done
  [ -n "$lexical" ] || return 0
  tag=$(basename "$(dirname "$lexical")")
  # the lexical model alone on the same sets: the baseline of the joint decision
  mkdir -p "$ljexp/lexical_$tag"
  echo "$cmd" > "$ljexp/lexical_$tag/run.cmd"
  joint_tune "$lexical" "$ljexp/ppe/best.pt" "$lj/dev" "$lj/train" "$ljexp/joint_${tag}_ppe" "$force"
  for set in test test_hyp; do
    ref=$lj/${set%_hyp}
    decode_model 7 "lexical_$tag" "$ljexp/lexical_$tag" "$lj/$set" "$lexical" -- --model "$lexical"
    score_model 7 "lexical_$tag" "$ljexp/lexical_$tag" "$set" "$ref"
    for st in 1 2; do
      joint_decode "$st" "$lexical" "$ljexp/ppe/best.pt" "$ljexp/joint_${tag}_ppe/joint.yaml" \
        "$ljexp/joint${st}_${tag}_ppe" "$lj/$set" "$cmd" "$force"
      score_model 7 "joint${st}_${tag}_ppe" "$ljexp/joint${st}_${tag}_ppe" "$set" "$ref"
    done
  done
}
