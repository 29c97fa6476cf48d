#!/usr/bin/env bash
# The loader-truth acceptance on a machine with an NVIDIA GPU and PyTorch (docs/runs/):
#   1. with LD_LIBRARY_PATH set to the system cuDNN directory, what a real PyTorch process maps
#      after a convolution (/proc/self/maps), next to what `cudnnup which --for torch` and
#      `cudnnup doctor` say it loads;
#   2. doctor's per-copy versions with another 9.x copy first on LD_LIBRARY_PATH (each copy must
#      keep its own version: the probes run in the copy's own loader environment);
#   3. doctor --json start-up against `python3 -c pass`, alternating, median of 7.
# Usage: bench/gpu_truth_acceptance.sh CUDNNUP [PYTHON]   Output: $OUT (default /tmp/out).
set -u
cudnnup=${1:?usage: gpu_truth_acceptance.sh CUDNNUP [PYTHON]}
python=${2:-$(command -v python3)}
out=${OUT:-/tmp/out}
mkdir -p "$out"
log=$out/truth-acceptance.txt
: > "$log"
say() { printf '%s\n' "$*" >> "$log"; }
run() { say "\$ $*"; "$@" >> "$log" 2>&1; say "(exit $?)"; say ""; }

shim=$(ls /usr/lib/x86_64-linux-gnu/libcudnn.so.9* 2>/dev/null | head -1)
if [[ -z $shim ]]; then say "no system cuDNN 9 in /usr/lib/x86_64-linux-gnu"; exit 1; fi
system_dir=$(dirname "$shim")
say "# $(date -u +%Y-%m-%dT%H:%MZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
say "# python $python: $("$python" -c 'import torch; print("torch", torch.__version__, "cuDNN", torch.backends.cudnn.version())' 2>&1)"
say "# system cuDNN: $(ls "$system_dir"/libcudnn.so.9.* 2>/dev/null | head -1)"
say ""

maps=$(mktemp --suffix=.py)
cat > "$maps" <<'PY'
# A real PyTorch process: one convolution, then every cuDNN file it mapped, in map order. The
# maps are printed whatever PyTorch says of the cuDNN it found (its version check may refuse it).
import torch
try:
    x = torch.randn(8, 16, 32, 32, device="cuda")
    w = torch.randn(32, 16, 3, 3, device="cuda")
    torch.nn.functional.conv2d(x, w)
    torch.cuda.synchronize()
    print("torch.backends.cudnn.enabled:", torch.backends.cudnn.enabled)
    print("torch.backends.cudnn.version():", torch.backends.cudnn.version())
except Exception as e:
    print("PyTorch raised:", type(e).__name__, str(e).splitlines()[0])
seen = []
for line in open("/proc/self/maps"):
    fields = line.split()
    path = fields[5] if len(fields) >= 6 else ""
    if "libcudnn" in path and path not in seen:
        seen.append(path)
        print("mapped", path)
PY

say "## 1. LD_LIBRARY_PATH=$system_dir"
export LD_LIBRARY_PATH=$system_dir
run "$python" "$maps"
run "$cudnnup" which --for torch --python "$python"
run "$cudnnup" which --for torch --python "$python" --probe
run "$cudnnup" doctor
"$cudnnup" --json doctor > "$out/doctor-system-first.json" 2>> "$log"
say "doctor --json exit $? (document: doctor-system-first.json)"
say ""

say "## 2. each copy's version as doctor reports it, with the system copy first on LD_LIBRARY_PATH"
"$python" - "$out/doctor-system-first.json" >> "$log" 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for c in doc.get("copies", []):
    probe = c.get("probe") or {}
    about = [f.get("id") + " (" + f.get("severity", "") + ")" for f in doc.get("findings", [])
             if c.get("lib_dir") and c["lib_dir"] in json.dumps(f)]
    print(c.get("lib_dir"), "| version", c.get("version"), "for CUDA", c.get("cuda_major"),
          "| probe", probe.get("version"), "cudart", probe.get("cudart_version"), "isolated", probe.get("isolated"),
          "| findings naming it:", about or "none")
PY
unset LD_LIBRARY_PATH
say ""
say "## 3. doctor --json start-up against python3 -c pass (7 alternating runs, seconds)"
"$python" - "$cudnnup" >> "$log" 2>&1 <<'PY'
import statistics, subprocess, sys, time
def once(argv):
    t = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t
py, doc = [], []
for i in range(7):
    py.append(once(["python3", "-c", "pass"]))
    doc.append(once([sys.argv[1], "--json", "doctor"]))
    print(f"run {i + 1}: python3 -c pass {py[-1]:.4f} s, doctor --json {doc[-1]:.4f} s")
print(f"median: python3 -c pass {statistics.median(py):.4f} s, doctor --json {statistics.median(doc):.4f} s, "
      f"ratio {statistics.median(doc) / statistics.median(py):.2f}x")
PY
rm -f "$maps"
