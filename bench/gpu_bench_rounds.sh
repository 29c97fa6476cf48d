#!/bin/bash
# cudnnup bench against PyTorch cudnn.benchmark=True, same cuDNN, in alternating rounds
# (PyTorch first in odd rounds, cudnnup first in even ones), with the GPU's clocks, power and
# temperature logged every 100 ms; then bench/combine_rounds.py prints the per-case medians.
#   bench/gpu_bench_rounds.sh [CUDNNUP] [ROUNDS]     (writes into $OUT or /tmp/out)
set -u
W=$(cd "$(dirname "$0")" && pwd)
B=${1:-$W/../build/src/cudnnup}
ROUNDS=${2:-2}
OUT=${OUT:-/tmp/out}
PY=${PY:-python3}
mkdir -p "$OUT"
PIP=$($PY -c 'import site; print(site.getsitepackages()[0])')/nvidia/cudnn
"$B" bench --list-cases > "$OUT/cases.json" || exit 2
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 100 > "$OUT/gpu_monitor.csv" 2>&1 &
monitor=$!
pytorch() { timeout 300 $PY "$W/pytorch_conv.py" bench "$OUT/cases.json" > "$OUT/pytorch_$1.json" 2>> "$OUT/pytorch.log"; echo "round $1 PyTorch exit $? $(date -u +%T)"; }
ours() { timeout 300 "$B" --json bench --copy "$PIP" > "$OUT/cudnnup_$1.json"; echo "round $1 cudnnup exit $? $(date -u +%T)"; }
for r in $(seq "$ROUNDS"); do
  if (( r % 2 )); then pytorch "$r"; ours "$r"; else ours "$r"; pytorch "$r"; fi
done
kill $monitor 2>/dev/null
$PY "$W/combine_rounds.py" "$OUT" | tee "$OUT/combined.txt"
