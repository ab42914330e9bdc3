#!/usr/bin/env bash
# Train the accurate tier on a lent GPU machine (the library's device tool), from the state
# file in git (models/accurate/tagger.pt) to as far as its time allows, and bring the file back.
#
# That machine reaches nothing outside it and takes at most 64 MiB of files a call, so the
# encoder (438 MB) travels in parts, one call each, into a folder that stays while the machine
# stays warm (30 s between calls), and the data travels compressed. On this machine:
#
#   local/device_accurate.sh pack            # .device/: the encoder in parts, the data, a list
#   # then one device call per part, each carrying its part (the session's tool calls):
#   #   run(command="bash local/device_accurate.sh receive N", carry=[".device/part.N"])
#   # then the training, carrying the data; the state file travels with the working tree:
#   #   run(command="bash local/device_accurate.sh train 7m", carry=[".device/data.tar.xz", ".device/whl",
#       ".device/parts.sha256"])
#   # and the files back: cp <files_at>/tagger.pt* models/accurate/, then commit them
#
# receive and train run there (they check what they get and stop with one line when a part is
# missing). The training is ./run.sh's stage 6 command for 'accurate' with --device cuda (bf16)
# and a time budget: it resumes from the state file, validates, writes the file back, and
# copies it with its record and the log into $OUT.
set -euo pipefail
cd "$(dirname "$0")/.."

# a call carries at most 64 MiB with the working tree (about 18 MB tracked): 40 MiB parts, 11 of them
part_mb=40
stage=/tmp/punct-device          # on the device machine: where the parts are joined
enc_name=all-mpnet-base-v2

die() { echo "error: $*" >&2; exit 1; }

case "${1:-}" in
  pack)
    # shellcheck source=path.sh
    . ./path.sh
    enc=$(python -m punct fetch-encoder "$enc_name")
    if [ ! -f data/earnings/ted_e22/text ] || [ ! -f data/earnings/e22_dev/text ]; then
      die "data/earnings/ted_e22 or e22_dev missing: run ./run.sh --corpus earnings --stage 1 --stop-stage 1"
    fi
    grep -qx '/.device/' .git/info/exclude 2>/dev/null || echo '/.device/' >> .git/info/exclude
    rm -rf .device && mkdir -p .device
    # the encoder's folder as one tar, cut into parts that each fit one call
    tar -C "$(dirname "$enc")" -cf - "$(basename "$enc")" | split -b "${part_mb}m" -d -a 2 - .device/part.
    (cd .device && sha256sum part.* > parts.sha256)
    tar -C data/earnings -cJf .device/data.tar.xz \
      ted_e22/text ted_e22/labels ted_e22/written ted_e22/utt2spk ted_e22/spk2utt \
      e22_dev/text e22_dev/labels e22_dev/written e22_dev/utt2spk e22_dev/spk2utt
    # pure-Python packages the training imports that the machine's image lacks (KINDS.md)
    kaldiio_version=$(python -c 'import importlib.metadata as m; print(m.version("kaldiio"))')
    python -m pip download -q --no-deps --disable-pip-version-check -d .device/whl "kaldiio==$kaldiio_version"
    n=$(find .device -maxdepth 1 -name 'part.*' | wc -l)
    echo "packed $n encoder parts and the data ($(du -sh .device/data.tar.xz | cut -f1)) into .device/:"
    for p in .device/part.*; do
      echo "  run(command=\"bash local/device_accurate.sh receive ${p##*.}\", carry=[\"$p\", \".device/parts.sha256\"])"
    done
    echo "  run(command=\"bash local/device_accurate.sh train 7m\", carry=[\".device/data.tar.xz\", \".device/parts.sha256\", \".device/whl\"])"
    ;;
  receive)
    n=${2:?usage: $0 receive PART-NUMBER}
    [ -f ".device/part.$n" ] || die ".device/part.$n did not travel (carry it)"
    mkdir -p "$stage"
    want=$(grep " part.$n\$" .device/parts.sha256 | cut -d' ' -f1)
    got=$(sha256sum ".device/part.$n" | cut -d' ' -f1)
    [ "$want" = "$got" ] || die "part $n: sha256 $got, expected $want (a broken transfer: send it again)"
    cp ".device/part.$n" "$stage/part.$n"
    echo "part $n received; parts here: $(find "$stage" -maxdepth 1 -name 'part.*' | wc -l)" \
      "of $(wc -l < .device/parts.sha256)"
    ;;
  train)
    budget=${2:?usage: $0 train TIME-BUDGET (e.g. 7m)}
    [ -f .device/data.tar.xz ] || die ".device/data.tar.xz did not travel (carry it)"
    have=$(find "$stage" -maxdepth 1 -name 'part.*' 2>/dev/null | wc -l)
    need=$(wc -l < .device/parts.sha256)
    [ "$have" = "$need" ] || die "$have of $need encoder parts on this machine (the machine went back? receive them again)"
    export PUNCT_CACHE=$stage/cache
    mkdir -p "$PUNCT_CACHE/encoders"
    if [ ! -f "$PUNCT_CACHE/encoders/$enc_name/model.safetensors" ]; then
      cat "$stage"/part.* | tar -C "$PUNCT_CACHE/encoders" -xf -
    fi
    mkdir -p data/earnings
    tar -C data/earnings -xJf .device/data.tar.xz
    python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target "$stage/site" .device/whl/*.whl
    export PYTHONPATH=$PWD:$stage/site${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
    python3 -m punct fetch-encoder "$enc_name" --check   # the sha256 of the joined weights
    out=${OUT:-/tmp/punct-device-out}
    mkdir -p "$out"
    set +e
    python3 -m punct.bin.train --config conf/accurate.yaml --train data/earnings/ted_e22 \
      --valid data/earnings/e22_dev --exp exp/earnings/accurate --state models/accurate/tagger.pt \
      --time-budget "$budget" --device cuda threads=8 2>&1 | tee "$out/train.log"
    rc=${PIPESTATUS[0]}
    set -e
    cp models/accurate/tagger.pt models/accurate/tagger.pt.json "$out/" 2>/dev/null || true
    exit "$rc"
    ;;
  *)
    die "usage: $0 pack | receive PART-NUMBER | train TIME-BUDGET (see the top of this file)"
    ;;
esac
