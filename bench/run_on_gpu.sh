#!/bin/bash
# One run of bench/bench_local.py (and tests/gpu/test_hf_on_gpu.py) on a GPU machine without a
# network, everything it needs installed by the script itself: wheels for what that machine's
# Python lacks go in $WHEELS (default .whl; lvlmbench's own dependencies and transformers 5.24
# were carried this way), installed into /tmp/site. Figures go to $OUT (default ./gpu-out).
#   BENCH_ARGS='--batches 8,32,64,128 --auto-items 256,512' GPU_TESTS=1 bash bench/run_on_gpu.sh
# On an H200 the default bench (all parts) takes about 5 minutes.
set -u
WHEELS=${WHEELS:-.whl}
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
if compgen -G "$WHEELS/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site "$WHEELS"/*.whl || exit 3
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD/src:$PWD/bench PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
python3 -c "import torch, transformers; print(torch.__version__, transformers.__version__)"
timeout "${BENCH_S:-420}" python3 bench/bench_local.py ${BENCH_ARGS:-} --json "$OUT/local.json" 2>&1 \
  | grep -v -e "Loading weights" -e "Writing model" | tee "$OUT/bench.log"
echo "bench rc=${PIPESTATUS[0]}"
if [ -n "${GPU_TESTS:-}" ]; then
  PYTHONPATH=$PYTHONPATH:$PWD/tests timeout 150 python3 -m pytest -q -p no:cacheprovider \
    tests/gpu/test_hf_on_gpu.py 2>&1 | tail -15 | tee "$OUT/gpu_tests.log"
fi
