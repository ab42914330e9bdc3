# Stage 7 helpers: train acoustic and fusion models, decode and score them, tune and
# run the joint decision. Sourced by a corpus's corpus.sh (recipes/earnings); they use
# run.sh's variables and functions ($force, stage_cmd, $train_cmd, $decode_cmd, $train_overrides) and local/log.sh.
# Every output directory is skipped when finished (.done) unless --force true.
# shellcheck shell=bash

# acoustic_train NAME CONFIG TRAIN VALID DIR [KEY=VALUE ...]: train one model into DIR
acoustic_train() {
  local name=$1 config=$2 train=$3 valid=$4 dir=$5
  shift 5
  if [ -f "$dir/best.pt" ] && [ -f "$dir/.done" ] && [ "$force" != true ]; then
    log "stage 7: train $name: $dir is finished; skipping"; return 0
  fi
  mkdir -p "$dir/log"
  stage_cmd "${cmd_model:-$name}" 7 7 > "$dir/run.cmd"
  log "stage 7: train $name ($config): $train -> $dir/best.pt; log: $dir/log/train.log"
  # shellcheck disable=SC2086  # the user's overrides are words
  $train_cmd "$dir/log/train.log" "${trainer[@]}" --config "$config" \
    --train "$train" --valid "$valid" --exp "$dir" "$@" ${train_overrides:-} \
    || fail_with_log "$dir/log/train.log" "training $name failed"
  touch "$dir/.done"
}

# acoustic_score DIR SET REF: score DIR/decode_SET against the reference data directory REF
acoustic_score() {
  local dir=$1 set=$2 ref=$3 out=$1/decode_$2
  log "stage 7: score $(basename "$dir") on $set: $ref vs $out -> $out/scoring/"
  python -m punct score "$ref" "$out" --out-dir "$out/scoring" > /dev/null || die "scoring $out failed"
}

# acoustic_decode DIR DATA SET REF [MODEL]: decode DATA/SET with MODEL (default DIR/best.pt)
# into DIR/decode_SET, score against REF
acoustic_decode() {
  local dir=$1 data=$2 set=$3 ref=$4 model=${5:-$1/best.pt} out=$1/decode_$3
  # the log stays outside $out, which the decoder replaces as a whole
  local logf=$dir/log/decode_$set.log
  if up_to_date "$out/.done" "$model" && [ "$force" != true ]; then
    log "stage 7: decode $(basename "$dir") on $set: $out is finished and newer than its model; skipping"
  else
    mkdir -p "$dir/log"
    log "stage 7: decode $(basename "$dir") ($model): $data/$set -> $out; log: $logf"
    $decode_cmd "$logf" python -m punct.bin.decode --model "$model" \
      --data "$data/$set" --out "$out" --no-score --threads 1 \
      || fail_with_log "$logf" "decoding $set with $model failed"
    touch "$out/.done"
  fi
  acoustic_score "$dir" "$set" "$ref"
}

# joint_tune LEXICAL ACOUSTIC DEV TRAIN DIR: choose the joint decision's parameters -> DIR/joint.yaml
joint_tune() {
  local lexical=$1 acoustic=$2 dev=$3 train=$4 dir=$5
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

# joint_system STAGE LEXICAL ACOUSTIC CONFIG DIR DATA SET REF: the joint decision (stage 1 or 2)
# of two models on DATA/SET into DIR/decode_SET, scored against REF
joint_system() {
  local stage=$1 lexical=$2 acoustic=$3 config=$4 dir=$5 data=$6 set=$7 ref=$8 out=$5/decode_$7
  local logf=$5/log/decode_$7.log
  mkdir -p "$dir/log"
  local acname
  acname=$(basename "$(dirname "$acoustic")")
  stage_cmd "${cmd_model:-${acname%"${exp_tag:+_$exp_tag}"}}" 7 7 > "$dir/run.cmd"
  printf 'model: joint%s\nlexical: %s\nacoustic: %s\njoint_config: %s\n' "$stage" "$lexical" "$acoustic" "$config" \
    > "$dir/config.yaml"
  if up_to_date "$out/.done" "$lexical" "$acoustic" "$config" && [ "$force" != true ]; then
    log "stage 7: joint stage $stage on $set: $out is finished and newer than its models; skipping"
  else
    log "stage 7: joint stage $stage ($lexical + $acoustic): $data/$set -> $out; log: $logf"
    $decode_cmd "$logf" python -m punct.bin.joint_decode --lexical "$lexical" --acoustic "$acoustic" \
      --config "$config" --stage "$stage" --data "$data/$set" --out "$out" \
      || fail_with_log "$logf" "joint decoding of $set failed"
    touch "$out/.done"
  fi
  acoustic_score "$dir" "$set" "$ref"
}

# acoustic_ljspeech LJDATA LJEXP [LEXICAL]: the prosodic models on LJ Speech, the corpus with
# audio (pitch and energy): Pause and PPE trained on train (validated on dev), decoded and
# scored on test and test_hyp; with a lexical model LEXICAL (a best.pt), the joint decision
# with PPE too (tuned on dev). Needs ./run.sh --corpus ljspeech --stop-stage 5 first.
acoustic_ljspeech() {
  local lj=$1 ljexp=$2 lexical=${3:-} set ref
  local cmd_model=ppe  # what run.cmd names: run.sh --models ppe redoes these
  local sets="test test_hyp"
  acoustic_train pause "conf/che_pause.yaml" "$lj/train" "$lj/dev" "$ljexp/pause"
  acoustic_train ppe "conf/che_ppe.yaml" "$lj/train" "$lj/dev" "$ljexp/ppe"
  for set in $sets; do
    ref=$lj/${set%_hyp}
    acoustic_decode "$ljexp/pause" "$lj" "$set" "$ref"
    acoustic_decode "$ljexp/ppe" "$lj" "$set" "$ref"
  done
  if [ -n "$lexical" ]; then
    local tag
    tag=$(basename "$(dirname "$lexical")")
    # the lexical model alone on the same sets: the baseline of the joint decision
    mkdir -p "$ljexp/lexical_$tag"
    stage_cmd "$cmd_model" 7 7 > "$ljexp/lexical_$tag/run.cmd"
    joint_tune "$lexical" "$ljexp/ppe/best.pt" "$lj/dev" "$lj/train" "$ljexp/joint_${tag}_ppe"
    for set in $sets; do
      ref=$lj/${set%_hyp}
      acoustic_decode "$ljexp/lexical_$tag" "$lj" "$set" "$ref" "$lexical"
      joint_system 1 "$lexical" "$ljexp/ppe/best.pt" "$ljexp/joint_${tag}_ppe/joint.yaml" \
        "$ljexp/joint1_${tag}_ppe" "$lj" "$set" "$ref"
      joint_system 2 "$lexical" "$ljexp/ppe/best.pt" "$ljexp/joint_${tag}_ppe/joint.yaml" \
        "$ljexp/joint2_${tag}_ppe" "$lj" "$set" "$ref"
    done
  fi
}
