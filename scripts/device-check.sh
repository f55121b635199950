#!/usr/bin/env bash
# On a machine with a CUDA GPU: report the three blog samples and run the CUDA tests, in under 5 minutes.
#
#   scripts/device-check.sh [OUT_DIR]      (default reports/; PYTHON=... picks the interpreter)
#
# Writes OUT_DIR/{sum,poly,trig}.html and .json (the *-compiled-cuda variants with their Triton kernels,
# launch configs and copy costs; the CPU Triton preview beside them) and OUT_DIR/apply/sum.* (the
# np.apply_along_axis variants, on a small population: one compiled call per row) and OUT_DIR/small/poly.* (poly's
# CUDA variant at 2,000, where CUDA graphs are tried). Uses the machine's own
# torch when it sees a GPU and runs inspector from this checkout, so it needs no network; otherwise it
# installs torch 2.13.0 from PyPI (its Linux wheel is the CUDA build). Exit 1 when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-reports}
py=${PYTHON:-python3}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
sees_gpu() { "$py" -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' 2>/dev/null; }
if ! sees_gpu; then
  "$py" -m pip install -q torch==2.13.0 || exit 2
  sees_gpu || { echo "device-check: torch sees no CUDA device" >&2; exit 2; }
fi
"$py" -c 'import typer, jinja2, pygments, rich, pytest' 2>/dev/null || "$py" -m pip install -q -e ".[test]" || exit 2
"$py" -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, "on", torch.cuda.get_device_name())'

status=0 start=$SECONDS
report() { "$py" -m inspector report "$@" --budget 0.2 --timeout 120 --triton-preview || status=1; }
for stem in poly trig; do report "samples/$stem.py" -n 900000 -o "$out"; done
report samples/sum.py -n 900000 -o "$out" -v python -v numpy -v 'numpy-*' -v torch -v 'torch-*'
report samples/sum.py -n 2000 -o "$out/apply" -v numpy -v 'numpy_apply*'
# a small CUDA call, mostly outside its kernels: mode="reduce-overhead" (CUDA graphs) tried beside it
report samples/poly.py -n 2000 -o "$out/small" -v numpy -v 'torch-compiled-cuda'
"$py" -m pytest -q -rs -p no:cacheprovider tests/e2e/test_triton.py || status=1
echo "device-check: $((SECONDS - start)) s, exit $status"
exit $status
