#!/bin/bash
# The acceptance run on a GPU machine, in one call (docs/benchmarks.md): verify the pip and the
# system cuDNN (each must pass, every stage reported, with the errors of each conv/graph stage
# against its bound printed), the same with another copy on LD_LIBRARY_PATH and in LD_PRELOAD,
# verify's wall time against the PyTorch one-conv check (median of 5, target <= 1.0 s), broken
# copies (each must fail at the right stage), then one bench round against PyTorch with the same
# cuDNN and PyTorch's engine filter (like for like, every shape >= 1.00x), and a second round
# with `--candidates wide` for reference. Last, with LD_LIBRARY_PATH set to the system cuDNN, what
# which --for torch and doctor predict against what a real PyTorch process maps.
#   bench/gpu_acceptance.sh [CUDNNUP]      (default build/src/cudnnup; writes into $OUT or /tmp/out)
# Ends with a summary: one PASS/FAIL line per acceptance point, exit 1 when any failed.
set -u
W=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
LOG=$OUT/log.txt
exec > >(tee "$LOG") 2>&1
B=${1:-$W/../build/src/cudnnup}
PY=python3
RESULTS=()
step() { echo; echo "=== $* ==="; }
verdict() { RESULTS+=("$1  $2"); echo "--> $1 $2"; }
step "machine"
date -u; uname -a; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.max_limit --format=csv 2>&1 | head -3
ldd --version | head -1
"$B" --version || exit 2
SITE=$($PY -c 'import site; print(site.getsitepackages()[0])')
PIP=$SITE/nvidia/cudnn
SYS=/usr/lib/x86_64-linux-gnu
step "copies"
ls -la "$PIP/lib" | head -20; ls -la $SYS/libcudnn* | head -30
which nvcc; nvcc --version | tail -2
$PY -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version(), "allow_tf32", torch.backends.cudnn.allow_tf32)'

# verify_json NAME EXPECTED_EXIT ARGS...: runs verify --json, prints each stage, checks the exit code.
verify_json() {
  local name=$1 want=$2; shift 2
  timeout 120 "$B" --json verify "$@" > "$OUT/verify_$name.json"; local rc=$?
  $PY - "$OUT/verify_$name.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
for run in d["runs"]:
    for s in run["stages"]:
        f = s.get("finding") or {}
        print(f"  {s['status']:7s} {s['id']:26s} {s['summary'][:150]}  {f.get('id', '')}")
    print("  stages:", len(run["stages"]), "exit", run["exit_code"], "seconds", round(run["seconds"], 3))
PYEOF
  if [ "$rc" = "$want" ]; then verdict PASS "verify $name: exit $rc"; else verdict FAIL "verify $name: exit $rc, expected $want"; fi
}

step "verify the pip copy and the system copy (all 29 stages must pass)"
timeout 120 "$B" verify --copy "$PIP"; echo "text exit $?"
verify_json pip 0 --copy "$PIP"
verify_json system 0 --copy "$SYS"
step "the same copies with the other one on LD_LIBRARY_PATH / in LD_PRELOAD (must still pass)"
LD_LIBRARY_PATH=$SYS verify_json pip_with_system_on_ld_library_path 0 --copy "$PIP"
LD_PRELOAD=$SYS/libcudnn_graph.so.9 verify_json pip_with_system_graph_preloaded 0 --copy "$PIP"
LD_LIBRARY_PATH=$PIP/lib verify_json system_with_pip_on_ld_library_path 0 --copy "$SYS"

step "numerics on the GPU: each conv/graph stage's error against its bound (worst of both copies)"
$PY - "$OUT"/verify_pip.json "$OUT"/verify_system.json <<'PYEOF'
import json, re, sys
worst = {}
for path in sys.argv[1:]:
    for run in json.load(open(path))["runs"]:
        for s in run["stages"]:
            m = re.search(r"max error ([0-9.e+-]+) of magnitude \(([0-9.e+-]+) of its bound\), relative L2 error ([0-9.e+-]+) \(bound ([0-9.e+-]+)\)", s["summary"])
            if m:
                vals = tuple(float(x) for x in m.groups())
                if s["id"] not in worst or vals[1] > worst[s["id"]][1]:
                    worst[s["id"]] = vals
for sid, (mx, ratio, l2, l2b) in sorted(worst.items()):
    print(f"  {sid:26s} max {mx:.2e} of T = {ratio:.2f} of its bound; L2 {l2:.2e} = {l2 / l2b:.2f} of {l2b:.1e}")
print("  largest share of a bound:", max((v[1] for v in worst.values()), default=0))
PYEOF

step "verify wall time vs PyTorch one-conv (5 runs each, interleaved; target median <= 1.0 s)"
timeout 200 "$W/verify_timing.sh" "$B" "$PIP" $PY | tee "$OUT/timing.txt"
median=$(awk '/median verify/ {print $3}' "$OUT/timing.txt")
if awk "BEGIN { exit !($median <= 1.0) }"; then verdict PASS "verify median $median s"; else verdict FAIL "verify median $median s (> 1.0)"; fi

step "broken copy 1: libcudnn_cnn.so.9 from the system 9.14 copy inside the pip 9.19 copy"
rm -rf /tmp/mixed && mkdir /tmp/mixed && cp -L "$PIP"/lib/libcudnn*.so.9 /tmp/mixed/ &&
cp -L $SYS/libcudnn_cnn.so.9 /tmp/mixed/libcudnn_cnn.so.9
verify_json mixed 1 --copy /tmp/mixed
step "broken copy 2: truncated libcudnn_engines_precompiled.so.9"
rm -rf /tmp/trunc && mkdir /tmp/trunc && cp -L "$PIP"/lib/libcudnn*.so.9 /tmp/trunc/ &&
truncate -s $(( $(stat -c %s /tmp/trunc/libcudnn_engines_precompiled.so.9) / 2 )) /tmp/trunc/libcudnn_engines_precompiled.so.9
verify_json truncated 1 --copy /tmp/trunc
step "broken copy 3: engine library cut inside its code, headers intact (verify cannot see code it never runs)"
rm -rf /tmp/cut && mkdir /tmp/cut && cp -L "$PIP"/lib/libcudnn*.so.9 /tmp/cut/ &&
$PY - <<'PYEOF'
# Zero 64 KiB in the middle of the file: the ELF headers still describe a whole file.
p = "/tmp/cut/libcudnn_engines_precompiled.so.9"
with open(p, "r+b") as f:
    f.seek(0, 2); size = f.tell(); f.seek(size // 2); f.write(b"\0" * 65536)
PYEOF
timeout 120 "$B" -q verify --copy /tmp/cut; echo "exit $?"

step "bench: cases, PyTorch side, cudnnup side with PyTorch's filter (same cuDNN: the pip copy torch loads)"
"$B" bench --list-cases > /tmp/cases.json
timeout 240 env PYTHONUNBUFFERED=1 $PY "$W/pytorch_conv.py" bench /tmp/cases.json > "$OUT/pytorch.json"; echo "pytorch exit $?"
timeout 300 "$B" --json bench --copy "$PIP" --compare "$OUT/pytorch.json" --svg "$OUT/bench.svg" > "$OUT/bench.json"; echo "bench exit $?"
$PY - "$OUT/bench.json" <<'PYEOF' && verdict PASS "bench like for like, every case checked, >= 1.00x" || verdict FAIL "bench (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
print("cuDNN", d.get("cudnn_version"), d.get("lib_dir"), d.get("gpu"), d.get("peak"))
print("candidates", d.get("candidates"), "allow_tf32", d.get("allow_tf32"), "comparison", d.get("comparison"))
ok = d.get("exit_code") == 0 and (d.get("comparison") or {}).get("like_for_like") is True
for r in d.get("rows", []):
    ratio = r.get("ratio_vs_pytorch", 0)
    print(f"{r['shape']:32s} {r['type']:4s} {r['layout']:4s} {r['ms']:9.4f} ms {r['tflops']:7.1f} TF ({100 * r['tflops'] / max(r['peak_tflops'], 1e-9):4.0f}% of peak) "
          f"pt {r.get('pytorch_ms', 0):9.4f} ms  ratio {ratio:5.2f}  engine {r['engine']} [{r.get('engine_notes', '')}] "
          f"cands {r['candidates']} {r.get('error', '')}")
    print(f"    check: {r.get('check', '')}")
    ok = ok and not r.get("error") and ratio >= 1.0
sys.exit(0 if ok else 1)
PYEOF
step "bench, wider search than PyTorch's (for reference: not like for like)"
timeout 300 "$B" bench --copy "$PIP" --candidates wide --compare "$OUT/pytorch.json" > "$OUT/bench_wide.txt"; echo "bench wide exit $?"
cat "$OUT/bench_wide.txt"

step "LD_LIBRARY_PATH=$SYS (the system cuDNN): what which and doctor predict for PyTorch, and what it maps"
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

step "summary"
date -u
failed=0
for r in "${RESULTS[@]}"; do echo "  $r"; case $r in FAIL*) failed=1 ;; esac; done
exit $failed
