#!/usr/bin/env bash
# Cross-builds cudnnup for Windows x64 with mingw-w64 and runs, under Wine in a fresh prefix:
#   1. the test programs (cudnnup_{unit,disk,cli}_tests.exe; Linux-only tests are compiled out or
#      skip themselves),
#   2. end-to-end checks of cudnnup.exe (help, version, exit codes, doctor --json, the probe
#      child loading stub DLLs built from tests/fixtures/windows),
#   3. install / archive-info / uninstall of a Windows .zip zipped from those DLLs: the store,
#      a CUDA\v12.4 toolkit, refusals, downloads from a local and a loopback http mirror.
#   4. the guide's procedure end to end (scripts/test-windows-procedure.sh, sourced): findings,
#      their cmd fix lines run in cmd.exe, their PowerShell lines against golden files, and
#      load_cudnn.exe's LoadLibrary against `cudnnup which`.
# CUDNNUP_WINDOWS_ONLY=procedure runs only 4 (and builds no test programs); CUDNNUP_WINDOWS_NO_BUILD=1
# uses build-windows as it is; CUDNNUP_UPDATE_GOLDEN=1 rewrites 4's golden files.
# libarchive for mingw-w64 comes from scripts/build-windows-deps.sh (run first, once).
# Prints "windows: N passed, M failed" and exits non-zero when anything failed.
# Needs: scripts/install-deps.sh --windows (Debian 12). Build dir: build-windows (CMake preset
# "windows"). Set CUDNNUP_WINDOWS_JOBS to change the build parallelism (default 2).
set -euo pipefail
# A setup step that fails stops the script (set -e): say which one, instead of ending silently.
trap 'rc=$?; [[ $- == *e* ]] && echo "test-windows: line $LINENO failed (exit $rc): $BASH_COMMAND" >&2' ERR

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=build-windows
jobs=${CUDNNUP_WINDOWS_JOBS:-2}

for tool in x86_64-w64-mingw32-g++-posix x86_64-w64-mingw32-windres wine wineboot cmake ninja python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "test-windows: $tool is missing; run scripts/install-deps.sh --windows" >&2
    exit 2
  fi
done

# libarchive for mingw-w64 from Debian's source package (install/archive-info on Windows).
[[ ${CUDNNUP_WINDOWS_NO_BUILD:-} == 1 ]] || scripts/build-windows-deps.sh

echo "== cross-building into $build (ninja -j$jobs)"
if [[ ! -f $build/CMakeCache.txt ]] || ! grep -q '^CUDNNUP_WITH_INSTALL:BOOL=ON' "$build/CMakeCache.txt"; then
  cmake --preset windows -DCUDNNUP_HAVE_LIBARCHIVE=ON -DCUDNNUP_WITH_INSTALL=ON >/dev/null
fi
only=${CUDNNUP_WINDOWS_ONLY:-}  # "procedure": only scripts/test-windows-procedure.sh (a quick rerun)
if [[ ${CUDNNUP_WINDOWS_NO_BUILD:-} == 1 ]]; then
  echo "   (CUDNNUP_WINDOWS_NO_BUILD=1: the build as it is)"
elif [[ $only == procedure ]]; then
  ninja -C "$build" -j"$jobs" cudnnup cudnnup_windows_fixture_dlls
else
  ninja -C "$build" -j"$jobs" cudnnup cudnnup_tests cudnnup_windows_fixture_dlls
fi

work=$(mktemp -d -t cudnnup-wine.XXXXXX)
export WINEPREFIX=$work/prefix
export WINEDEBUG=-all
export WINEARCH=win64
# No Mono/Gecko installer prompts in a headless prefix: cudnnup needs neither.
export WINEDLLOVERRIDES="mscoree,mshtml="
cleanup() {
  wineserver -k >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== creating a fresh Wine prefix in $WINEPREFIX"
wineboot -i >/dev/null 2>&1
wineserver -w 2>/dev/null || true  # wait until the prefix is fully written

passed=0
failed=0
skipped=0
failures=()

# run_test_program GROUP: runs build-windows/tests/cudnnup_GROUP_tests.exe under Wine and adds
# its gtest XML counts to the totals.
run_test_program() {
  local group=$1 program=cudnnup_$1_tests.exe
  echo "== $group tests under Wine ($program)"
  local xml=$work/$group.xml xml_win rc
  set +e
  xml_win=$(winepath -w "$xml" 2>/dev/null || echo "$xml")
  wine "$build/tests/$program" --gtest_output="xml:$xml_win" --gtest_brief=1 2>&1 | tr -d '\r'
  rc=${PIPESTATUS[0]}
  set -e
  if [[ ! -s $xml ]]; then
    echo "test-windows: $program wrote no result file (exit code $rc)" >&2
    failed=$((failed + 1))
    failures+=("$program did not run (exit $rc)")
    return
  fi
  local u_total u_failed u_skipped u_passed
  read -r u_total u_failed u_skipped < <(python3 - "$xml" <<'PY'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
total = int(r.get("tests", 0)) - int(r.get("disabled", 0))
failed = int(r.get("failures", 0)) + int(r.get("errors", 0))
skipped = sum(1 for c in r.iter("testcase") if c.find("skipped") is not None)
print(total, failed, skipped)
PY
)
  u_passed=$((u_total - u_failed - u_skipped))
  echo "$group tests under Wine: $u_passed passed, $u_failed failed, $u_skipped skipped"
  passed=$((passed + u_passed))
  failed=$((failed + u_failed))
  skipped=$((skipped + u_skipped))
  if ((u_failed > 0)); then failures+=("$u_failed $group test(s)"); fi
  if ((rc != 0 && u_failed == 0)); then
    failed=$((failed + 1))
    failures+=("$program exited with $rc")
  fi
}
if [[ $only != procedure ]]; then for group in unit disk cli; do run_test_program "$group"; done; fi

echo "== end-to-end checks of cudnnup.exe under Wine"
exe=$build/src/cudnnup.exe
fixtures=$build/tests/fixtures/windows
# check NAME EXPECTED_RC[,RC...] PYTHON_CHECK -- ARGS...: runs cudnnup.exe ARGS, checks the exit
# code and runs PYTHON_CHECK with `out` (stdout) and `err` (stderr) bound; it must not raise.
# CHECK_IN_CMD=1: started by cmd.exe, as a user typing it there would.
check() {
  local name=$1 codes=$2 py=$3
  shift 4
  local out=$work/out err=$work/err rc
  set +e
  if [[ ${CHECK_IN_CMD:-} == 1 ]]; then
    wine cmd /d /c "$(win_path "$root/$exe")" "$@" >"$out" 2>"$err"
  else
    wine "$exe" "$@" >"$out" 2>"$err"
  fi
  rc=$?
  set -e
  local verdict
  if [[ ",$codes," != *",$rc,"* ]]; then
    verdict="exit code $rc, expected $codes"
  else
    verdict=$(python3 - "$out" "$err" "$py" <<'PY'
import json, sys
out = open(sys.argv[1], encoding="utf-8", errors="replace").read().replace("\r", "")
err = open(sys.argv[2], encoding="utf-8", errors="replace").read().replace("\r", "")
try:
    exec(sys.argv[3], {"out": out, "err": err, "json": json})
    print("ok")
except SystemExit as e:
    print(f"skip: {e}")
except Exception as e:  # the check's own message
    print(f"{type(e).__name__}: {e}")
PY
)
  fi
  case $verdict in
    ok) echo "  ok    $name"; passed=$((passed + 1)) ;;
    skip:*) echo "  skip  $name (${verdict#skip: })"; skipped=$((skipped + 1)) ;;
    *)
      echo "  FAIL  $name: $verdict"
      sed -n '1,5s/^/        stdout: /p' "$out"  # no pipe into head: SIGPIPE would end the script
      sed -n '1,5s/^/        stderr: /p' "$err"
      failed=$((failed + 1))
      failures+=("$name")
      ;;
  esac
}

# Wine maps / to drive Z:. Spelled out here rather than asking `winepath`, which starts a Wine
# process per call (and once, on a busy machine, failed without a word).
win_path() { local p=${1//\//\\}; printf 'Z:%s' "$p"; }
# The default store: %LOCALAPPDATA%\cudnnup of the Wine prefix's user.
export T_STORE=$(find "$WINEPREFIX/drive_c/users" -maxdepth 4 -type d -path '*/AppData/Local' | head -1)/cudnnup
# summary: the result line; exits non-zero when anything failed.
summary() {
  echo
  echo "windows: $passed passed, $failed failed ($skipped skipped)"
  if ((failed > 0)); then
    printf 'failed: %s\n' "${failures[@]}"
    exit 1
  fi
}
if [[ $only == procedure ]]; then
  source "$root/scripts/test-windows-procedure.sh"
  summary
  exit 0
fi

check "--help teaches and exits 0" 0 'assert "cudnnup doctor" in out, out[:200]' -- --help
check "--version" 0 'assert out.startswith("cudnnup "), out' -- --version
check "no command is a usage error (2)" 2 'assert "say which command" in err.lower(), err' --
check "unknown option is a usage error (2)" 2 'assert "not expected" in err or "--definitely-not" in err, err' -- doctor --definitely-not
check "doctor --json prints one JSON document" 0,1,3 '
if not out.strip():
    raise SystemExit("doctor printed nothing: the doctor command is not implemented in this build yet")
json.loads(out)' -- doctor --json
# The probe child (`cudnnup __child REQUEST`, core/child/protocol.h) with its events on stdout.
probe_request() { printf '{"protocol":"cudnnup.child/1","task":"probe-cudnn","events":"-","library":"%s"}' "$1"; }
probe_result='[j] = [json.loads(l)["result"] for l in out.splitlines() if l.startswith("{\"event\":\"result\"")]
assert out.splitlines()[-1] == "{\"event\":\"done\"}", out'
check "probe loads a stub cudnn64_9.dll" 0 "$probe_result"'
assert j["loaded"] is True, j; assert j["version"] == 91900, j' -- __child "$(probe_request "$fixtures/v9.19.0.56/cudnn64_9.dll")"
mkdir -p "$work/alone" && cp "$fixtures/v9.19.0.56/cudnn64_9.dll" "$work/alone/"
check "probe reports a missing sub-DLL as error 126" 0 "$probe_result"'
assert j["loaded"] is False, j; assert "error 126" in j["error"], j' -- __child "$(probe_request "$work/alone/cudnn64_9.dll")"
: >"$work/empty.dll"
check "probe reports a 0-byte DLL" 0 "$probe_result"'
assert j["loaded"] is False, j; assert "empty.dll" in j["error"], j' -- __child "$(probe_request "$work/empty.dll")"

echo "== install / archive-info / uninstall of a Windows .zip under Wine"
# cudnn-windows-x86_64-9.1.0.99_cuda12-archive.zip (a build NVIDIA never published, so the mirror's
# sha256 is the one checked; 9.1.0.70 has a published one) in NVIDIA's layout, from the stub DLLs (with
# VERSIONINFO) built by tests/fixtures/windows; lib\x64\*.lib are placeholders.
zip_name=cudnn-windows-x86_64-9.1.0.99_cuda12-archive.zip
published_name=cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip
python3 - "$fixtures/v9.1.0.70" "$work/$zip_name" "$work/hostile.zip" "$work/$published_name" <<'PY'
import os, sys, zipfile
dlls, out, hostile, published = sys.argv[1:5]
out_top = os.path.basename(out)[:-4] + "/"
comps = ["", "_graph", "_ops", "_cnn", "_adv", "_heuristic", "_engines_precompiled", "_engines_runtime_compiled"]
header = ("#ifndef CUDNN_VERSION_H_\n#define CUDNN_VERSION_H_\n#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n"
          "#define CUDNN_PATCHLEVEL 0\n#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n#endif\n")
def write(path, extra=()):
    top = os.path.basename(path)[:-4] + "/"
    if path == hostile:
        top = out_top
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(top + "include/cudnn_version.h", header)
        z.writestr(top + "include/cudnn.h", '#include "cudnn_version.h"\n')
        for c in comps[1:]:
            z.writestr(top + f"include/cudnn{c}.h", f"/* cudnn{c} */\n")
        for c in comps:
            z.write(os.path.join(dlls, f"cudnn{c}64_9.dll"), top + f"bin/cudnn{c}64_9.dll")
            z.writestr(top + f"lib/x64/cudnn{c}.lib", "!<arch>\n/ import lib")
            z.writestr(top + f"lib/x64/cudnn{c}64_9.lib", "!<arch>\n/ import lib")
        z.writestr(top + "LICENSE", "NVIDIA Software License Agreement (test copy)\n")
        for name, data in extra:
            z.writestr(name, data)
write(out)
write(hostile, [(out_top + "bin\\..\\..\\..\\evil.dll", "MZ evil")])
write(published)  # NVIDIA's published name, the stub's bytes
PY
zip_win=$(win_path "$work/$zip_name")
# The stub zip carries NVIDIA's file name but not NVIDIA's bytes: cudnnup knows the real file's
# size and sha256 (data/known_archives.json) and refuses it. The installs below take it through a
# local-directory mirror instead, whose redistrib manifest gives the stub's own sha256.
# The stub under the name of NVIDIA's published 9.1.0.70 archive: not NVIDIA's file.
published_win=$(win_path "$work/$published_name")
check "archive-info reads the zip (8 PE DLLs) and flags it as not NVIDIA's file" 1 '
j = json.loads(out); c = j["contents"]
assert c["header_version"] == "9.1.0" and not c["errors"], c
assert sum(1 for l in c["libraries"] if l["format"] == "pe" and l["machine"] == "x86_64") == 8, c["libraries"]
assert j["archive"]["name"]["platform_key"] == "windows-x86_64", j["archive"]
assert j["installable"] is False and "sha256" in json.dumps(j["known"]), j["known"]' -- --json archive-info --no-machine "$published_win"
check "install refuses a file named like NVIDIA's whose size differs" 2 '
assert "669629858" in err and "download again" in err, err' -- install "$published_win"

# NVIDIA's redistrib layout in a directory: redistrib_9.1.0.json + cudnn/windows-x86_64/<zip>.
mirror=$work/mirror
mkdir -p "$mirror/cudnn/windows-x86_64"
cp "$work/$zip_name" "$mirror/cudnn/windows-x86_64/"
python3 - "$mirror" "$zip_name" <<'PY'
import hashlib, json, os, sys
root, name = sys.argv[1:3]
data = open(os.path.join(root, "cudnn/windows-x86_64", name), "rb").read()
m = {"release_label": "9.1.0", "release_date": "2024-04-01", "release_product": "cudnn",
     "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "version": "9.1.0.99", "cuda_variant": ["12"],
               "windows-x86_64": {"cuda12": {"relative_path": "cudnn/windows-x86_64/" + name,
                                             "sha256": hashlib.sha256(data).hexdigest(), "md5": "0", "size": str(len(data))}}}}
open(os.path.join(root, "redistrib_9.1.0.json"), "w").write(json.dumps(m))
PY
mirror_win=$(win_path "$mirror")
check "install 9.1.0 --cuda 12 --dry-run (local mirror) plans and writes nothing" 0 '
import os
j = json.loads(out); assert j["dry_run"] is True and j["steps"], j
assert not os.path.exists(os.environ["T_STORE"] + "/versions"), "the dry run wrote the store"' \
  -- --json install 9.1.0 --cuda 12 --mirror "$mirror_win" --dry-run
check "install 9.1.0 --cuda 12 (local mirror) into the store under %LOCALAPPDATA%\\cudnnup" 0 '
import os
j = json.loads(out); assert j["mode"] == "store" and j["id"] == "9.1.0.99+cuda12", j
assert j["source"]["checked_against_known_hash"], j["source"]
d = os.environ["T_STORE"] + "/versions/9.1.0.99+cuda12"
for f in ("bin/cudnn64_9.dll", "bin/cudnn_graph64_9.dll", "lib/x64/cudnn.lib", "include/cudnn_version.h"):
    assert os.path.isfile(d + "/" + f), f
' -- --json install 9.1.0 --cuda 12 --mirror "$mirror_win"
check "doctor --json finds the store copy and loads it (9.1.0)" 0,1,3 '
j = json.loads(out)
found = [c for c in j["copies"] if "9.1.0.99+cuda12" in c["root"]]
assert found, [c["root"] for c in j["copies"]]
assert found[0]["version"] == "9.1.0", found[0]
p = found[0].get("probe")
assert p and p["loaded"] is True and p["version_number"] == 90100, p' -- --json doctor
check "uninstall removes the store copy" 0 '
import os
assert not os.path.exists(os.environ["T_STORE"] + "/versions/9.1.0.99+cuda12")' -- uninstall 9.1.0.99+cuda12

# A toolkit laid out like C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4.
cuda=$work/CUDA/v12.4
export T_CUDA=$cuda T_LOG=$work/requests.log
mkdir -p "$cuda/include" "$cuda/bin" "$cuda/lib/x64"
printf '#define CUDA_VERSION 12040\n' >"$cuda/include/cuda.h"
cp "$fixtures/v9.19.0.56/cudnn_ops64_9.dll" "$cuda/bin/cudart64_12.dll"  # any DLL: it only has to stay untouched
printf 'cudart import lib' >"$cuda/lib/x64/cudart.lib"
cuda_win=$(win_path "$cuda")
tree_sum() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum; find . -type d | sort) | sha256sum; }
before=$(tree_sum "$cuda")
check "install --into CUDA\\v12.4 merges bin, include, lib\\x64" 0 '
import os
j = json.loads(out); assert j["mode"] == "merge", j
for f in ("bin/cudnn64_9.dll", "bin/cudnn_ops64_9.dll", "include/cudnn.h", "lib/x64/cudnn64_9.lib", ".cudnnup/manifest.json"):
    assert os.path.isfile(os.environ["T_CUDA"] + "/" + f), f
assert not os.path.exists(os.environ["T_CUDA"] + "/LICENSE")' -- --json install 9.1.0 --mirror "$mirror_win" --into "$cuda_win"
export CUDA_PATH=$cuda_win
check "doctor --json finds the copy in the toolkit" 0,1,3 '
j = json.loads(out)
found = [c for c in j["copies"] if "v12.4" in c["root"]]
assert found, [c["root"] for c in j["copies"]]
assert found[0]["version"] == "9.1.0", found[0]' -- --json doctor
# The procedure's step 4 skipped: the toolkit's bin is not on PATH. An error, fixed through the
# user PATH in the registry (env --persist --dir), never setx; on PATH, the finding is gone.
check "doctor: the toolkit's bin off PATH is windows.cudnn_not_on_path (error) with env --persist --dir" 1 '
j = json.loads(out)
f = [x for x in j["findings"] if x["id"] == "windows.cudnn_not_on_path"]
assert f and f[0]["severity"] == "error", [x["id"] for x in j["findings"]]
assert f[0]["fix_commands"][0][:4] == ["cudnnup", "env", "--persist", "--dir"], f[0]["fix_commands"]
assert f[0]["fix_commands"][0][4].lower().endswith("v12.4\\bin"), f[0]["fix_commands"]
assert not any("setx" in c for c in f[0]["fix_commands"]), f[0]["fix_commands"]' -- --json doctor
WINEPATH="$cuda_win\\bin" check "doctor: with the toolkit's bin on PATH, no windows.cudnn_not_on_path" 0,1 '
j = json.loads(out)
assert not [x for x in j["findings"] if x["id"] == "windows.cudnn_not_on_path"], [x["title"] for x in j["findings"]]' -- --json doctor
# A stray cudnn64_9.dll in System32 (a hand copy): moved aside, never a PATH change.
sys32="$WINEPREFIX/drive_c/windows/system32"
cp "$fixtures/v9.1.0.70/cudnn64_9.dll" "$sys32/cudnn64_9.dll"
check "doctor: a stray cudnn64_9.dll in System32 gets mkdir and move, as administrator, no PATH change" 0,1 '
j = json.loads(out)
f = [x for x in j["findings"] if x["id"] in ("windows.stray_system_dll", "cudnn.shadowed") and "system32" in x["subject"].lower()]
assert f, [(x["id"], x["subject"]) for x in j["findings"]]
lines = "\n".join(f[0]["fix"])
assert "administrator" in lines and "move " in lines and "cudnn-aside" in lines, lines
assert "from PATH" not in lines and "--persist" not in lines, lines' -- --json doctor
rm -f "$sys32/cudnn64_9.dll"
unset CUDA_PATH
check "uninstall --into restores the toolkit" 0 'pass' -- uninstall --into "$cuda_win"
if [[ $(tree_sum "$cuda") == "$before" ]]; then
  echo "  ok    the toolkit is byte-for-byte what it was"; passed=$((passed + 1))
else
  echo "  FAIL  the toolkit differs after uninstall"; failed=$((failed + 1)); failures+=("toolkit restored")
fi
check "a zip with ..\\ traversal is refused" 2 '
assert "traversal" in err, err' -- install "$(win_path "$work/hostile.zip")" --into "$cuda_win"
printf '#define CUDA_VERSION 13000\n' >"$cuda/include/cuda.h"
check "a CUDA 13 toolkit refuses the _cuda12 archive" 2 '
assert "CUDA 12" in err and "CUDA 13" in err, err' -- install 9.1.0 --cuda 12 --mirror "$mirror_win" --into "$cuda_win"
printf '#define CUDA_VERSION 12040\n' >"$cuda/include/cuda.h"
printf '\xfd7zXZ' >"$work/cudnn-linux-x86_64-9.1.0.99_cuda12-archive.tar.xz"
check "a Linux .tar.xz is refused with the reason" 2 '
assert ".zip" in err, err' -- install "$(win_path "$work/cudnn-linux-x86_64-9.1.0.99_cuda12-archive.tar.xz")"
if [[ $(tree_sum "$cuda") == "$before" ]]; then
  echo "  ok    refused installs left the toolkit unchanged"; passed=$((passed + 1))
else
  echo "  FAIL  a refused install changed the toolkit"; failed=$((failed + 1)); failures+=("toolkit unchanged after refusals")
fi

# SIGKILL at several moments of `install --into` (staging, verification, commit): the next run
# that takes the lock repairs, and the toolkit is then the old tree or the new one, never a mix.
# A 24 MiB incompressible filler makes the install last long enough to be hit mid-way; the
# 9.1.0.71 name is not in the known-archives table, so the file is taken as it is.
big=$work/cudnn-windows-x86_64-9.1.0.71_cuda12-archive.zip
python3 - "$work/$zip_name" "$big" <<'PY'
import os, sys, zipfile
src, out = sys.argv[1:3]
old_top = os.path.basename(src)[:-4] + "/"
new_top = os.path.basename(out)[:-4] + "/"
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for item in zin.infolist():
        z.writestr(new_top + item.filename[len(old_top):], zin.read(item))
    z.writestr(new_top + "bin/zz_filler.bin", os.urandom(24 << 20))
PY
big_win=$(win_path "$big")
crash_run() { wine "$exe" "$@" >/dev/null 2>&1; }
# The toolkit outside .cudnnup/ (whose manifest and backup names carry each run's transaction id),
# plus whether a cudnnup manifest is there: equal for two complete installs of the same archive.
public_sum() { echo "$(cd "$1" && find . -path ./.cudnnup -prune -o -type f -print0 | sort -z | xargs -0 sha256sum) $([[ -f $1/.cudnnup/manifest.json ]] && echo manifest)" | sha256sum; }
t0=$(date +%s%N)
crash_run install "$big_win" --into "$cuda_win" || true
full_ms=$((($(date +%s%N) - t0) / 1000000))
after=$(public_sum "$cuda")
crash_run uninstall --into "$cuda_win" || true
crash_ok=1
crash_notes=()
mid=0
if [[ $after == "$(public_sum "$cuda")" || $(tree_sum "$cuda") != "$before" ]]; then
  crash_ok=0
  crash_notes+=("the uninterrupted install/uninstall did not work")
fi
for step in 1 2 3 4 5; do
  ms=$((full_ms * step / 6))
  # --foreground: only the Wine process is killed (timeout stays out of its way and reports 137)
  timeout --foreground -s KILL "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))" \
    wine "$exe" install "$big_win" --into "$cuda_win" >/dev/null 2>&1 || true
  # A journal left behind means the kill landed inside the transaction.
  journal_dir=$T_STORE/journal
  if [[ -d $journal_dir ]] && [[ -n $(ls -A "$journal_dir" 2>/dev/null) ]]; then mid=$((mid + 1)); fi
  crash_run uninstall 0.0.0 || true  # takes the lock, so it repairs first
  if [[ $(tree_sum "$cuda") != "$before" && $(public_sum "$cuda") != "$after" ]]; then
    crash_ok=0
    crash_notes+=("kill at ${ms} ms: after repair the toolkit is neither the old nor the new tree")
  fi
  crash_run install "$big_win" --into "$cuda_win" || true
  [[ $(public_sum "$cuda") == "$after" ]] || { crash_ok=0; crash_notes+=("kill at ${ms} ms: the next install did not complete"); }
  crash_run uninstall --into "$cuda_win" || true
  [[ $(tree_sum "$cuda") == "$before" ]] || { crash_ok=0; crash_notes+=("kill at ${ms} ms: uninstall did not restore the toolkit"); }
done
if ((crash_ok)); then
  echo "  ok    SIGKILL at 5 moments of a ${full_ms} ms install --into (${mid} inside the transaction): repaired to old or new"
  passed=$((passed + 1))
else
  echo "  FAIL  SIGKILL during install --into: ${crash_notes[*]}"
  failed=$((failed + 1))
  failures+=("SIGKILL during install --into")
fi

# `install VERSION --cuda 12` over http through WinHTTP, from tests/support/mirror_server.py on
# loopback (Wine's WinHTTP reaches the host's 127.0.0.1): the first download is dropped half-way.
export CUDNNUP_HOME=$(win_path "$work/store-http")
rm -f "$work/port"
python3 scripts/../tests/support/mirror_server.py --root "$mirror" --port-file "$work/port" --log "$work/requests.log" \
  --lifetime 120 --drop-after $(($(stat -c %s "$work/$zip_name") / 2)) &
server_pid=$!
for _ in $(seq 100); do [[ -s $work/port ]] && break; sleep 0.05; done
url=http://127.0.0.1:$(cat "$work/port")/
check "install 9.1.0 over http: a dropped download fails and says to run again" 2 '
assert "again" in err, err' -- install 9.1.0 --cuda 12 --mirror "$url"
check "install 9.1.0 over http (WinHTTP) resumes with Range and installs" 0 '
import os
j = json.loads(out); assert j["id"] == "9.1.0.99+cuda12" and j["source"]["downloaded"], j
log = open(os.environ["T_LOG"]).read(); assert "range=bytes=" in log, log' \
  -- --json install 9.1.0 --cuda 12 --mirror "$url"
check "a version the mirror lacks is a clear 404" 2 '
assert "9.99.0" in err, err' -- install 9.99.0 --cuda 12 --mirror "$url"
python3 -c "import urllib.request as u; u.urlopen('${url}__quit', timeout=5)" >/dev/null 2>&1 || true
wait "$server_pid" 2>/dev/null || true
unset CUDNNUP_HOME

echo "== which: the Windows DLL search order against stub DLLs laid out in temp folders"
wd=$work/which
mkdir -p "$wd"/{a,b,app,py,empty,x86,lonely}
# b: a whole 9.1 set (every sub-library); a: 9.19 with only graph and ops (as the fixtures build it).
cp "$fixtures"/v9.19.0.56/*.dll "$wd/a/"
cp "$fixtures"/v9.1.0.70/*.dll "$wd/b/"
cp "$exe" "$wd/app/app.exe" && cp "$fixtures"/v9.1.0.70/*.dll "$wd/app/"
: >"$wd/empty/cudnn64_9.dll"
cp "$fixtures"/v9.19.0.56/*.dll "$wd/x86/"
# An x64 stub with its COFF machine field set to x86 (0x14c): the loader must refuse it (193).
python3 - "$wd/x86/cudnn64_9.dll" <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read())
pe = int.from_bytes(b[0x3c:0x40], "little"); b[pe + 4:pe + 6] = (0x14c).to_bytes(2, "little")
open(p, "wb").write(b)
PY
cp "$fixtures/v9.19.0.56/cudnn64_9.dll" "$wd/lonely/"
# WINEPATH puts folders on the Windows PATH of the process Wine starts.
WINEPATH="$(win_path "$wd/b");$(win_path "$wd/a")" check "which: the first PATH folder wins, the later copy loses" 0 '
r = json.loads(out)["resolution"]
assert r["found"] and r["path"].lower().endswith("\\b\\cudnn64_9.dll"), r["path"]
assert r["rule"] == "PATH" and "PATH entry 1" in r["rule_detail"] + json.dumps(r["candidates"][0]), r
lost = [c for c in r["candidates"] if c["outcome"].startswith("loses")]
assert any(c["path"].lower().endswith("\\a\\cudnn64_9.dll") and "earlier directory" in c["outcome"] for c in lost), lost' -- --json which
WINEPATH="$(win_path "$wd/a");$(win_path "$wd/b")" check "which: sub-libraries from a later PATH folder are a mix of copies (of one version: cuDNN's check passes, exit 0)" 0 '
j = json.loads(out); c = j["cudnn"]
assert c["version_check"] == "passes", c
assert j["resolution"]["path"].lower().endswith("\\a\\cudnn64_9.dll"), j["resolution"]["path"]
assert c["mixed_copies"], c
other = [s["component"] for s in c["sub_libraries"] if s["from_other_copy"]]
assert "cnn" in other and "graph" not in other, other' -- --json which
WINEPATH="$(win_path "$wd/b")" check "which --for APP.exe: the program's folder beats PATH" 0 '
j = json.loads(out); r = j["resolution"]
assert j["target_kind"] == "executable", j["target_kind"]
assert r["path"].lower().endswith("\\app\\cudnn64_9.dll") and r["rule"] == "application-dir", r
assert any(c["path"].lower().endswith("\\b\\cudnn64_9.dll") for c in r["candidates"] if c["outcome"].startswith("loses")), r' -- --json which --for "$(win_path "$wd/app/app.exe")"
WINEPATH="$(win_path "$wd/b")" check "which --for python: Python 3.8+ ignores PATH (126)" 1 '
r = json.loads(out)["resolution"]
assert not r["found"] and r["win32_error"] == 126, r
assert any("never searches PATH" in c["outcome"] for c in r["candidates"]), r["candidates"]' -- --json which --for python --python "$(win_path "$wd/py")"
WINEPATH="$(win_path "$wd/b")" check "which --for python --dll-dir: os.add_dll_directory makes it load" 0 '
r = json.loads(out)["resolution"]
assert r["found"] and "add_dll_directory" in r["rule"] + r["rule_detail"], r' -- --json which --for python --python "$(win_path "$wd/py")" --dll-dir "$(win_path "$wd/b")"
WINEPATH="$(win_path "$wd/empty");$(win_path "$wd/b")" check "which: a 0-byte DLL first on PATH fails with 193" 1 '
r = json.loads(out)["resolution"]
assert not r["found"] and r["failed_at"] and r["win32_error"] == 193, r
assert r["candidates"][0]["problem"] == "empty", r["candidates"][0]
assert "would load" in r["rule_detail"], r["rule_detail"]' -- --json which
WINEPATH="$(win_path "$wd/x86")" check "which: an x86 DLL fails with 193 (wrong machine)" 1 '
r = json.loads(out)["resolution"]
assert r["win32_error"] == 193 and r["candidates"][0]["problem"] == "wrong_machine", r' -- --json which
WINEPATH="$(win_path "$wd/lonely")" check "which: a shim without its sub-DLL fails with 126" 1 '
r = json.loads(out)["resolution"]
assert r["win32_error"] == 126 and r["candidates"][0]["problem"] == "missing_dependency", r
assert "cudnn_graph64_9.dll" in r["candidates"][0]["problem_detail"], r' -- --json which
WINEPATH="$(win_path "$wd/b")" check "which (text) names the winner and the rule" 0 '
assert "loads" in out and "PATH entry" in out and "cudnn64_9.dll" in out, out' -- which

echo "== --help and env speak Windows: %LOCALAPPDATA%, C:\\Program Files, PATH/LIB/INCLUDE"
check "install --help names the Windows store and toolkit folders, nothing of Linux" 0 '
assert "%LOCALAPPDATA%" in out and "Program Files" in out and "administrator" in out, out
for word in ("XDG_DATA_HOME", "/usr/local", "no root needed", ".tar.xz", "sudo"):
    assert word not in out, word' -- install --help
check "verify --help and env --help name Windows places and MSVC variables" 0 '
assert "LIB and INCLUDE" in out and "LD_LIBRARY_PATH" not in out and "CPATH" not in out, out' -- env --help
check "verify --help has no Linux paths" 0 '
assert "/usr/local/cuda" not in out and "Program Files" in out, out' -- verify --help
echo "== env --persist: the user PATH in HKCU\\Environment (REG_EXPAND_SZ) under Wine"
store=$work/store-persist
mkdir -p "$store/versions/9.19.0.56+cuda13/bin"
cp "$fixtures"/v9.19.0.56/*.dll "$store/versions/9.19.0.56+cuda13/bin/"
CUDNNUP_HOME=$(win_path "$store")
export CUDNNUP_HOME
reg_path() {  # prints "TYPE<tab>VALUE" of HKCU\Environment\Path, or nothing
  { wine reg query 'HKCU\Environment' /v Path 2>/dev/null || true; } | tr -d '\r' | python3 -c '
import sys
for line in sys.stdin:
    parts = line.strip().split("    ")
    if len(parts) >= 3 and parts[0].lower() == "path":
        print(parts[1] + "\t" + "    ".join(parts[2:]))'
}
original_path=$(reg_path)
# Longer than setx's 1024 characters, with unexpanded %VAR% entries and a trailing ';'.
long="%CUDA_PATH%\\bin;%USERPROFILE%\\tools"
while ((${#long} < 2000)); do long="$long;C:\\Program Files\\Vendor\\Tool ${#long}\\bin"; done
long="$long;"
wine reg add 'HKCU\Environment' /v Path /t REG_EXPAND_SZ /d "$long" /f >/dev/null 2>&1
bin_dir="$(win_path "$store")\\versions\\9.19.0.56+cuda13\\bin"
check_reg() {  # NAME PYTHON_CHECK, with typ, val, long, bin_dir, original bound
  local verdict
  verdict=$(reg_path | python3 -c '
import sys
line = sys.stdin.read().rstrip("\n")
typ, _, val = line.partition("\t")
try:
    exec(sys.argv[1], {"typ": typ, "val": val, "long": sys.argv[2], "bin_dir": sys.argv[3], "original": sys.argv[4]})
    print("ok")
except Exception as e:
    print(f"{type(e).__name__}: {e}"[:300])' "$2" "$long" "$bin_dir" "$original_path")
  if [[ $verdict == ok ]]; then
    echo "  ok    $1"; passed=$((passed + 1))
  else
    echo "  FAIL  $1: $verdict"; failed=$((failed + 1)); failures+=("$1")
  fi
}
check_reg "the test's long user PATH is in place" 'assert typ == "REG_EXPAND_SZ" and val == long, (typ, len(val), len(long))'
check "env --persist --dry-run shows old and new, writes nothing" 0 '
j = json.loads(out)
assert j["dry_run"] and not j["written"] and j["changed"], j
assert j["new_value"] == j["added"] + ";" + j["old_value"], "every old entry kept, in order"' -- --json env --persist --dry-run --version 9.19
check_reg "--dry-run left the registry alone" 'assert val == long'
check "env --persist writes the user PATH" 0 '
j = json.loads(out); assert j["written"] and j["type"] == "REG_EXPAND_SZ", j' -- --json env --persist --version 9.19
# For the record (not a pass/fail: a headless prefix may have no window to answer).
echo "  info  WM_SETTINGCHANGE broadcast delivered: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["broadcast"])' "$work/out" 2>/dev/null || echo unknown)"
check_reg "user PATH is REG_EXPAND_SZ, the bin dir first, the 2000+ characters after it intact" '
assert typ == "REG_EXPAND_SZ", typ
assert val.lower() == (bin_dir + ";" + long).lower(), (val[:120], bin_dir)
assert val[len(bin_dir) + 1:] == long'
check "env --persist again changes nothing (no stacking)" 0 '
j = json.loads(out); assert not j["changed"] and not j["written"], j' -- --json env --persist --version 9.19
check "env --unpersist (text) says what it removed" 0 '
assert "- " in out and "9.19.0.56+cuda13" in out, out' -- env --unpersist
check_reg "--unpersist gives back the exact old value" 'assert typ == "REG_EXPAND_SZ" and val == long, (len(val), len(long))'
# --persist --dir: any folder (a toolkit's bin, with spaces) first, the rest kept; --unpersist leaves it.
mkdir -p "$work/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin"
tk_bin="$(win_path "$work/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin")"
export T_TK_BIN=$tk_bin
check "env --persist --dir puts that folder first, every old entry kept" 0 '
import os
j = json.loads(out); assert j["written"] and j["version"] is None, j
assert j["added"].lower() == os.environ["T_TK_BIN"].lower(), j["added"]
assert j["new_value"] == j["added"] + ";" + j["old_value"], j' -- --json env --persist --dir "$tk_bin"
check_reg "--dir: REG_EXPAND_SZ, the folder first, the 2000+ characters after it intact" '
import os
assert typ == "REG_EXPAND_SZ" and val[val.index(";") + 1:] == long, (typ, val[:120])'
check "env --unpersist leaves a --dir entry (not cudnnup's store)" 0 '
j = json.loads(out); assert not j["changed"], j' -- --json env --unpersist
check "env --persist --dir of a folder that does not exist is a usage error" 2 '
assert "no such folder" in err, err' -- env --persist --dir "C:\\no\\such\\folder"
wine reg add 'HKCU\Environment' /v Path /t REG_EXPAND_SZ /d "$long" /f >/dev/null 2>&1
# A user without a user PATH value: persist creates it, unpersist removes it again (absent stays absent).
wine reg delete 'HKCU\Environment' /v Path /f >/dev/null 2>&1 || true
check_reg "the user PATH value is absent" 'assert typ == "", (typ, val[:80])'
check "env --persist creates the user PATH" 0 '
j = json.loads(out); assert j["written"] and j["old_value"] == "", j' -- --json env --persist --version 9.19
check "env --unpersist takes it out again" 0 '
j = json.loads(out); assert j["written"] and j["new_value"] == "", j' -- --json env --unpersist
check_reg "--unpersist deletes the value it emptied, rather than leaving an empty Path" 'assert typ == "", (typ, val[:80])'
# Put the prefix's user PATH back as it was.
if [[ -n $original_path ]]; then
  wine reg add 'HKCU\Environment' /v Path /t "${original_path%%$'\t'*}" /d "${original_path#*$'\t'}" /f >/dev/null 2>&1
else
  wine reg delete 'HKCU\Environment' /v Path /f >/dev/null 2>&1 || true
fi
check_reg "the prefix's user PATH is restored" 'assert (typ + "\t" + val if typ else "") == original, (typ, val[:80], original[:80])'

echo "== use and link where the store's current junction cannot be made (Wine has no junctions)"
check "use 9.19 records the default and says once, on stderr, that current was not made" 0 '
assert "is now the global default." in out and "->" not in out, out
assert err.count("was not updated") == 1 and "junction" in err, err' -- use 9.19
check "use 9.19 again is no change: no history entry, the missing current said once" 0 '
assert "already the global default; nothing changed." in out, out
assert err.count("was not updated") == 1 and "could not point" not in err, err' -- use 9.19
check "the history holds the one change" 0 '
j = json.loads(out); assert len(j["history"]) == 1, j["history"]' -- --json use --history
check "other commands do not complain about a current that cannot be made" 0 '
assert "could not point" not in err and "junction" not in err, err' -- list
mkdir -p "$work/tk-link/bin" "$work/tk-link/lib/x64" "$work/tk-link/include"
check "link then names the missing current link, not a missing default" 2 '
assert "no `current` link" in err and "no global default" not in err, err' -- link --into "$(win_path "$work/tk-link")"

echo "== printed commands are written for the shell cudnnup runs in"
# Started by cmd.exe: the fixes and undo lines are cmd's; CUDNNUP_SHELL and --shell win over that.
CHECK_IN_CMD=1 check "doctor started from cmd.exe writes its fixes for cmd" 0,1,3 '
j = json.loads(out); assert j["fix_shell"] == "cmd", j["fix_shell"]' -- --json doctor
CUDNNUP_SHELL=pwsh check "CUDNNUP_SHELL=pwsh names PowerShell" 0,1,3 '
j = json.loads(out); assert j["fix_shell"] == "pwsh", j["fix_shell"]' -- --json doctor
check "an unknown --shell is a usage error" 2 'assert "--shell" in err, err' -- --shell tcsh doctor
unset CUDNNUP_HOME

source "$root/scripts/test-windows-procedure.sh"

summary
