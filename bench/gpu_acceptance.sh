#!/bin/bash
# The issue-6 acceptance run on a GPU machine (docs/benchmarks.md): verify the pip and the system
# cuDNN, time verify against the PyTorch one-conv check, verify deliberately broken copies, and
# bench against PyTorch with the same cuDNN. Then issue 12's: with LD_LIBRARY_PATH set to the
# system cuDNN, which --for torch and doctor against what a real PyTorch process maps.
#   bench/gpu_acceptance.sh [CUDNNUP]      (default build/src/cudnnup; writes into $OUT or /tmp/out)
set -u
W=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
LOG=$OUT/log.txt
exec > >(tee "$LOG") 2>&1
B=${1:-$W/../build/src/cudnnup}
step() { echo; echo "=== $* ==="; }
step "machine"
date -u; uname -a; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv 2>&1 | head -3
ldd --version | head -1
"$B" --version || exit 2
PY=python3
SITE=$($PY -c 'import site; print(site.getsitepackages()[0])')
PIP=$SITE/nvidia/cudnn
SYS=/usr/lib/x86_64-linux-gnu
step "copies"
ls -la "$PIP/lib" | head -20; ls -la $SYS/libcudnn* | head -30
ls /usr/include/x86_64-linux-gnu/cudnn_version* /usr/include/cudnn_version* 2>&1 | head
which nvcc; nvcc --version | tail -2
$PY -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'

step "verify pip copy (text)"
timeout 120 "$B" verify --copy "$PIP"; echo "exit $?"
timeout 120 "$B" --json verify --copy "$PIP" > "$OUT/verify_pip.json"; echo "json exit $?"
step "verify system copy (text)"
timeout 120 "$B" verify --copy "$SYS"; echo "exit $?"
timeout 120 "$B" --json verify --copy "$SYS" > "$OUT/verify_sys.json"; echo "json exit $?"

step "verify wall time vs PyTorch one-conv (5 runs each, interleaved)"
timeout 200 "$W/verify_timing.sh" "$B" "$PIP" $PY

step "broken copy 1: libcudnn_cnn.so.9 from the system 9.14 copy inside the pip 9.19 copy"
rm -rf /tmp/mixed && mkdir /tmp/mixed && cp -L "$PIP"/lib/libcudnn*.so.9 /tmp/mixed/ &&
cp -L $SYS/libcudnn_cnn.so.9 /tmp/mixed/libcudnn_cnn.so.9 && ls -la /tmp/mixed
timeout 120 "$B" verify --copy /tmp/mixed; echo "exit $?"
step "broken copy 2: truncated libcudnn_engines_precompiled.so.9"
rm -rf /tmp/trunc && mkdir /tmp/trunc && cp -L "$PIP"/lib/libcudnn*.so.9 /tmp/trunc/ &&
truncate -s $(( $(stat -c %s /tmp/trunc/libcudnn_engines_precompiled.so.9) / 2 )) /tmp/trunc/libcudnn_engines_precompiled.so.9
timeout 120 "$B" verify --copy /tmp/trunc; echo "exit $?"
step "broken copy 3: engine library cut inside its code, headers intact"
rm -rf /tmp/cut && mkdir /tmp/cut && cp -L "$PIP"/lib/libcudnn*.so.9 /tmp/cut/ &&
$PY - <<'PYEOF'
# Zero 64 KiB in the middle of the file: the ELF headers still describe a whole file.
p = "/tmp/cut/libcudnn_engines_precompiled.so.9"
with open(p, "r+b") as f:
    f.seek(0, 2); size = f.tell(); f.seek(size // 2); f.write(b"\0" * 65536)
PYEOF
timeout 120 "$B" verify --copy /tmp/cut; echo "exit $?"

step "bench: cases, PyTorch side, cudnnup side (same cuDNN: the pip copy torch loads)"
"$B" bench --list-cases > /tmp/cases.json
timeout 240 env PYTHONUNBUFFERED=1 $PY "$W/pytorch_conv.py" bench /tmp/cases.json > "$OUT/pytorch.json"; echo "pytorch exit $?"
timeout 240 "$B" --json bench --copy "$PIP" --compare "$OUT/pytorch.json" --svg "$OUT/bench.svg" > "$OUT/bench.json"; echo "bench exit $?"
"$B" bench --help > /dev/null
$PY - "$OUT/bench.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
print("cuDNN", d.get("cudnn_version"), d.get("lib_dir"), d.get("gpu"), d.get("peak"))
for r in d.get("rows", []):
    print(f"{r['shape']:32s} {r['type']:4s} {r['layout']:4s} {r['ms']:9.4f} ms {r['tflops']:7.1f} TF  "
          f"pt {r.get('pytorch_ms', 0):9.4f} ms {r.get('pytorch_tflops', 0):7.1f} TF  ratio {r.get('ratio_vs_pytorch', 0):5.2f}  "
          f"engine {r['engine']} cands {r['candidates']} {r.get('error', '')}")
PYEOF
step "issue 12: LD_LIBRARY_PATH=$SYS (the system cuDNN): what which and doctor predict for PyTorch, and what it maps"
# Record the commands and their output in docs/commands/doctor.md ("On a GPU machine").
PYBIN=$(command -v $PY)
env LD_LIBRARY_PATH=$SYS "$B" which --for torch --python "$PYBIN" -v; echo "exit $?"
env LD_LIBRARY_PATH=$SYS "$B" --json which --for torch --python "$PYBIN" > "$OUT/which_torch_llp.json"; echo "json exit $?"
env LD_LIBRARY_PATH=$SYS "$B" doctor; echo "exit $?"
env LD_LIBRARY_PATH=$SYS "$B" --json doctor > "$OUT/doctor_llp.json"; echo "json exit $?"
timeout 300 env LD_LIBRARY_PATH=$SYS "$B" --json doctor --probe-frameworks > "$OUT/doctor_llp_probe.json"; echo "probe exit $?"
env LD_LIBRARY_PATH=$SYS $PY - > "$OUT/torch_maps_llp.txt" <<'PYEOF'
# A real PyTorch process under the same environment: one convolution, then every cuDNN file mapped.
import os, torch
x = torch.randn(1, 3, 32, 32, device="cuda")
w = torch.randn(8, 3, 3, 3, device="cuda")
torch.nn.functional.conv2d(x, w)
torch.cuda.synchronize()
print("# torch", torch.__version__, "cudnn", torch.backends.cudnn.version())
seen = []
for line in open("/proc/self/maps"):
    path = line.split()[-1] if "/" in line else ""
    if "libcudnn" in os.path.basename(path) and path not in seen:
        seen.append(os.path.realpath(path))
print("\n".join(dict.fromkeys(seen)))
PYEOF
echo "torch exit $?"; cat "$OUT/torch_maps_llp.txt"
$PY - "$OUT/which_torch_llp.json" "$OUT/doctor_llp.json" "$OUT/torch_maps_llp.txt" <<'PYEOF'
# The prediction of which --for torch and of doctor's "What loads", file for file, against the maps.
import json, os, sys
which, doctor, maps = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), open(sys.argv[3]).read().split("\n")
real = sorted(os.path.realpath(p) for p in maps if p and not p.startswith("#"))
def predicted(report):
    load = report.get("load") or {}
    return sorted(os.path.realpath(p) for p in load.get("loaded_cudnn_files", []))
for name, reports in (("which --for torch", which.get("reports", [])),
                      ("doctor frameworks", [f for f in doctor.get("frameworks", []) if f.get("framework") == "torch"])):
    for r in reports:
        p = predicted(r)
        print(name, r.get("env_prefix"), "AGREES" if p == real else "DISAGREES")
        for f in sorted(set(p) | set(real)):
            print("   ", "both     " if f in p and f in real else "predicted" if f in p else "mapped   ", f)
print("doctor findings:", [(f["id"], f["subject"]) for f in doctor.get("findings", [])])
for c in doctor.get("copies", []):
    print("copy", c["lib_dir"], c["library_version"], "cuda", c["cuda_major"], "isolated", (c.get("probe") or {}).get("isolated"))
PYEOF

step "done"; date -u
