# Sourced by run.sh and local/*.sh: the Python environment and locale of the recipe.
# shellcheck shell=bash
PUNCT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PUNCT_ROOT
export PATH="$PUNCT_ROOT/.venv/bin:$PATH"
export PYTHONPATH="$PUNCT_ROOT${PYTHONPATH:+:$PYTHONPATH}"
# Kaldi's sorting contract: data directory files are sorted in byte order.
export LC_ALL=C
export PYTHONIOENCODING=UTF-8
export PYTHONUNBUFFERED=1
# Two cores on the reference machine; override for bigger ones.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$(nproc 2>/dev/null || echo 2)}"
export MKL_NUM_THREADS="$OMP_NUM_THREADS"
# Idle OpenMP threads sleep instead of spinning: with two jobs on two cores, torch at 2
# threads ran a GRU 7x slower with spinning threads than with sleeping ones (measured
# under load; punct.bin.common.run sets the same default for commands started without this file).
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
# Nothing may reach a model hub: every model is trained here or shipped in a package.
export HF_HUB_OFFLINE=1
export TRANSFORMERS_OFFLINE=1
