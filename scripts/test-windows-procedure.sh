# The guide's procedure, end to end (docs/windows.md "The guide's procedure under Wine"):
# sourced by scripts/test-windows.sh, after its helpers (check, win_path) and counters; runs in its
# Wine prefix. Alone: CUDNNUP_WINDOWS_ONLY=procedure scripts/test-windows.sh.
#
# In the order of the manual procedure for Windows (download cudnn-windows-x86_64-9.1.0.70_cuda12-
# archive.zip, check nvcc and the driver, copy bin/include/lib into the CUDA folder, put its bin on
# PATH, open a new terminal, verify), with stub DLLs (tests/fixtures/windows): the archive under a
# browser's name, the merge into CUDA\v12.4, PATH without and with bin, the stale terminal, verify
# to the driver stage, no nvcc, a conda copy, DLLs quarantined after an install and after a hand
# copy, an old copy first on PATH and in System32. Each finding is checked by id and severity in
# `doctor --json`; its fix lines that are safe inside the prefix (cudnnup env/which, mkdir, move)
# are run as written for cmd (a batch file of the line, `cmd /d /c`), and its PowerShell lines are
# compared with tests/data/windows/procedure-golden/*.ps1 (no PowerShell here; reviewed by hand;
# CUDNNUP_UPDATE_GOLDEN=1 rewrites them). Last, load_cudnn.exe (LoadLibraryW("cudnn64_9.dll"))
# against `cudnnup which` in several PATH arrangements.

echo "== the guide's procedure, end to end (stub DLLs, under Wine)"
proc_t0=$(date +%s)
P=$work/procedure
golden_dir=$root/tests/data/windows/procedure-golden
export T_PROC_PY=$root/tests/support
proc_py() { python3 "$root/tests/support/windows_procedure.py" "$@"; }
# The prefix's user name and the work folder, as the goldens write them.
proc_user=$(basename "$(dirname "$(dirname "$(dirname "$T_STORE")")")")
proc_work=$(win_path "$work")
mkdir -p "$P/tools" "$P/dl"
# `cudnnup` in a printed fix is found through PATH, as on a user's machine: a folder with
# cudnnup.exe (and no cuDNN) is on every PATH of this section.
cp "$exe" "$P/tools/cudnnup.exe"
cp "$fixtures/tools/load_cudnn.exe" "$P/tools/"
tools_win=$(win_path "$P/tools")
# A store of this section's own: the default one holds other sections' leftovers.
export CUDNNUP_HOME=$(win_path "$P/store")
# The registry's user PATH as it was; put back at the end.
proc_reg_path() { { wine reg query 'HKCU\Environment' /v Path 2>/dev/null || true; } | tr -d '\r' | awk 'tolower($1) == "path" {sub(/^[ \t]*[^ \t]+[ \t]+[^ \t]+[ \t]+/, ""); print}'; }
proc_original_reg=$(proc_reg_path)

proc_ok() { echo "  ok    $1"; passed=$((passed + 1)); }
proc_fail() { echo "  FAIL  $1${2:+: $2}"; failed=$((failed + 1)); failures+=("$1"); }
# proc_doctor FILE SHELL: doctor --json with the current environment (WINEPATH as the caller sets it).
proc_doctor() { wine "$exe" --shell "$2" --json doctor >"$1" 2>"$1.err" || true; }
# fix_case LABEL GOLDEN ID SEVERITY [IDS_FOR_GOLDEN]: the finding in doctor --json (cmd), the
# PowerShell lines against GOLDEN.ps1, then every safe cmd line run in cmd.exe (each must exit 0).
# KNOWN (6th argument): a regex of a fix line known not to run as printed; its failure is reported
# as "known" (counted with the skipped) instead of failing the run.
fix_case() {
  local label=$1 golden=$2 id=$3 sev=$4 ids=${5:-$3} known=${6:-} why
  local doc=$P/$golden.cmd.json pdoc=$P/$golden.pwsh.json
  proc_doctor "$doc" cmd
  if why=$(proc_py finding "$doc" "$id" "$sev"); then proc_ok "$label: $id ($sev)"; else proc_fail "$label: $id ($sev)" "$why"; return; fi
  proc_doctor "$pdoc" pwsh
  if why=$(proc_py golden "$pdoc" "$ids" "$golden_dir/$golden.ps1" "$proc_work" "$proc_user"); then
    proc_ok "$label: the PowerShell fix matches $golden.ps1"
  else
    proc_fail "$label: the PowerShell fix differs from $golden.ps1" "$why"
  fi
  rm -rf "$P/batch"
  local files f rc out
  files=$(proc_py batch "$doc" "$id" "$P/batch") || { proc_fail "$label: fix lines" "$files"; return; }
  for f in $files; do
    set +e
    out=$(wine cmd /d /c "$(win_path "$f")" 2>&1 | tr -d '\r')
    rc=$?
    set -e
    local line
    line=$(sed -n 1p "$f" | tr -d '\r')
    if ((rc == 0)) || { ((rc == 1)) && [[ $line == "@cudnnup which "* ]]; }; then
      # `which` exits 1 when the DLL does not load: the answer, not a failure to run.
      proc_ok "$label: cmd runs ${line:1:110}$( ((rc)) && echo " (exit $rc: it does not load)")"
    elif [[ -n $known && $line =~ $known ]]; then
      echo "  known $label: cmd ran ${line:1:110}: exit $rc: $(printf '%s' "$out" | head -1)"
      skipped=$((skipped + 1))
    else
      proc_fail "$label: cmd ran ${line:1:110}" "exit $rc: ${out:0:300}"
    fi
  done
}
# gone LABEL ID: the finding is gone from a new doctor run.
gone() {
  local doc=$P/gone.json why
  proc_doctor "$doc" cmd
  if why=$(proc_py absent "$doc" "$2"); then proc_ok "$1"; else proc_fail "$1" "$why"; fi
}

# --- 1. The archive, under the name a browser gave it. ------------------------------------------
# The guide's archive (NVIDIA's name; the stub's bytes) and a build NVIDIA never published (so no
# published size or sha256 is held against the stub), each also saved as "cudnn (1).zip".
python3 - "$fixtures/v9.1.0.70" "$P/dl" <<'PY'
import os, sys, zipfile
dlls, out = sys.argv[1:3]
comps = ["", "_graph", "_ops", "_cnn", "_adv", "_heuristic", "_engines_precompiled", "_engines_runtime_compiled"]
header = ("#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n"
          "#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n")
for build, renamed in (("9.1.0.70", "cudnn (1).zip"), ("9.1.0.98", "cudnn (2).zip")):
    top = f"cudnn-windows-x86_64-{build}_cuda12-archive"
    for name in (top + ".zip", renamed):
        with zipfile.ZipFile(os.path.join(out, name), "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(top + "/include/cudnn_version.h", header)
            z.writestr(top + "/include/cudnn.h", '#include "cudnn_version.h"\n')
            for c in comps:
                z.write(os.path.join(dlls, f"cudnn{c}64_9.dll"), top + f"/bin/cudnn{c}64_9.dll")
                z.writestr(top + f"/lib/x64/cudnn{c}.lib", "!<arch>\n/ import lib")
            z.writestr(top + "/LICENSE", "NVIDIA Software License Agreement (test copy)\n")
PY
dl_win=$(win_path "$P/dl")
check "procedure 1: archive-info reads the guide's name (9.1.0.70, CUDA 12, windows-x86_64)" 1 '
j = json.loads(out); n = j["archive"]["name"]
assert n["platform_key"] == "windows-x86_64" and n["version"] == "9.1.0.70" and str(n["cuda_variant"]) == "12", n' \
  -- --json archive-info --no-machine "$dl_win\\cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip"
check "procedure 1: archive-info of \"cudnn (1).zip\" reads the version from the top folder" 0,1 '
j = json.loads(out); c = j["contents"]
assert c["header_version"] == "9.1.0" and c["top_dir"] == "cudnn-windows-x86_64-9.1.0.70_cuda12-archive", c' \
  -- --json archive-info --no-machine "$dl_win\\cudnn (1).zip"
# Under the browser's name the file name says nothing: install takes the version from the top
# folder and, where that folder names a published archive (9.1.0.70), holds the file to NVIDIA's
# published sha256 of it, which the stub's bytes fail; a renamed copy of an unpublished build
# (9.1.0.98) installs with a warning about the name. The same bytes under NVIDIA's name are
# refused too (their size is not NVIDIA's: see the install section).
check "procedure 1: install \"cudnn (1).zip\" is held to NVIDIA's sha256 of the archive its top folder names (the stub is refused)" 2 '
assert "cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip (the archive'"'"'s top folder)" in err and "download it again" in err, err' \
  -- install "$dl_win\\cudnn (1).zip" --dry-run
check "procedure 1: install \"cudnn (2).zip\" --dry-run warns about the name and takes 9.1.0.98 from the top folder" 0 '
assert "is not a cuDNN archive name" in err and "identifying it from its contents" in err, err
assert "9.1.0.98" in out and "Nothing was changed" in out, out' \
  -- install "$dl_win\\cudnn (2).zip" --dry-run
check "procedure 1: the same bytes under NVIDIA's name are refused (not NVIDIA's size)" 2 '
assert "download again" in err, err' -- install "$dl_win\\cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip" --dry-run

# --- 2. nvcc and the driver; the merge into CUDA\v12.4 (no nvcc in this toolkit). --------------
cuda=$P/CUDA/v12.4
mkdir -p "$cuda/include" "$cuda/bin" "$cuda/lib/x64"
printf '#define CUDA_VERSION 12040\n' >"$cuda/include/cuda.h"
cp "$fixtures/v9.19.0.56/cudnn_ops64_9.dll" "$cuda/bin/cudart64_12.dll"
cuda_win=$(win_path "$cuda")
export CUDA_PATH=$cuda_win T_CUDA=$cuda
check "procedure 2: install \"cudnn (2).zip\" --into CUDA\\v12.4 merges bin, include, lib\\x64 (the version from the top folder)" 0 '
import os
j = json.loads(out); assert j["mode"] == "merge", j
for f in ("bin/cudnn64_9.dll", "bin/cudnn_cnn64_9.dll", "include/cudnn.h", "lib/x64/cudnn.lib", ".cudnnup/manifest.json"):
    assert os.path.isfile(os.environ["T_CUDA"] + "/" + f), f' \
  -- --json install "$dl_win\\cudnn (2).zip" --into "$cuda_win"
check "procedure 2: doctor: the toolkit has no nvcc (not an error: only needed to build), no driver (a warning)" 0,1,3 '
j = json.loads(out)
tk = [t for t in j["toolkits"] if "v12.4" in t["root"]]
assert tk and not tk[0].get("nvcc"), tk
d = [f for f in j["findings"] if f["id"] == "driver.not_found"]
assert d and d[0]["severity"] == "warning", [(f["id"], f["severity"]) for f in j["findings"]]
assert not [f for f in j["findings"] if "nvcc" in f["title"].lower() and f["severity"] == "error"], j["findings"]' -- --json doctor

# --- 3. PATH without the bin folder, the fix run in cmd, then a new terminal. -------------------
export WINEPATH=$tools_win
fix_case "procedure 3: PATH without CUDA\\v12.4\\bin" path-without-bin windows.cudnn_not_on_path error
reg_now=$(proc_reg_path)
if [[ ${reg_now,,} == *"cuda\\v12.4\\bin"* ]]; then
  proc_ok "procedure 3: the fix put CUDA\\v12.4\\bin on the user PATH in the registry"
else
  proc_fail "procedure 3: the fix put CUDA\\v12.4\\bin on the user PATH in the registry" "user PATH: ${reg_now:0:200}"
fi
# Wine, like Windows, appends the registry's user PATH to a new process's PATH: a new terminal.
gone "procedure 3: a new terminal (PATH with bin): windows.cudnn_not_on_path is gone" windows.cudnn_not_on_path

# --- 4. The stale terminal: the registry's PATH has bin, this terminal's does not. -------------
# cmd's `set PATH=` stands for a terminal started before the change.
proc_stale() {
  wine cmd /d /c "set PATH=C:\\windows\\system32;C:\\windows;$tools_win&& cudnnup.exe --shell $1 --json doctor" >"$2" 2>"$2.err" || true
}
proc_stale cmd "$P/stale.cmd.json"
for pair in "windows.cudnn_not_on_path error" "windows.stale_session_path warning"; do
  set -- $pair
  if why=$(proc_py finding "$P/stale.cmd.json" "$1" "$2"); then proc_ok "procedure 4: stale terminal: $1 ($2)"; else proc_fail "procedure 4: stale terminal: $1 ($2)" "$why"; fi
done
if why=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
f = [x for x in j["findings"] if x["id"] == "windows.cudnn_not_on_path"][0]
assert "older than the registry" in f["title"], f["title"]
assert any("new terminal" in l.lower() or "reopen the terminal" in l.lower() for l in f["fix"]), f["fix"]
assert not any("--persist" in l for l in f["fix"]), f["fix"]' "$P/stale.cmd.json" 2>&1); then
  proc_ok "procedure 4: stale terminal: says to open a new terminal, not to change PATH again"
else
  proc_fail "procedure 4: stale terminal: says to open a new terminal" "$why"
fi
proc_stale pwsh "$P/stale.pwsh.json"
if why=$(proc_py golden "$P/stale.pwsh.json" windows.cudnn_not_on_path,windows.stale_session_path "$golden_dir/stale-terminal.ps1" "$proc_work" "$proc_user"); then
  proc_ok "procedure 4: stale terminal: the PowerShell fixes match stale-terminal.ps1"
else
  proc_fail "procedure 4: stale terminal: the PowerShell fixes differ from stale-terminal.ps1" "$why"
fi

proc_restore_reg() {
  if [[ -n $proc_original_reg ]]; then
    wine reg add 'HKCU\Environment' /v Path /t REG_EXPAND_SZ /d "$proc_original_reg" /f >/dev/null 2>&1
  else
    wine reg delete 'HKCU\Environment' /v Path /f >/dev/null 2>&1 || true
  fi
}
# The rest without the toolkit's bin on the registry's PATH (each case sets its own).
proc_restore_reg

# --- 5. verify: runs to the driver stage and stops there (no nvcuda.dll under Wine). ----------
check "procedure 5: verify --copy CUDA\\v12.4 fails at the driver stage, naming nvcuda.dll" 1,2,3 '
j = json.loads(out)
st = {s["id"]: s for s in j["runs"][0]["stages"]}
assert st["toolkit"]["status"] == "skipped" and "nvcc" in st["toolkit"]["summary"], st["toolkit"]
assert st["driver"]["status"] == "fail", st["driver"]
assert "nvcuda.dll" in json.dumps(st["driver"]), st["driver"]' -- --json verify --copy "$cuda_win\\bin"

# --- 6. Pitfalls. --------------------------------------------------------------------------------
# 6a. A DLL quarantined after the install: one deleted, one cut to 0 bytes (the manifest check).
mv "$cuda/bin/cudnn_cnn64_9.dll" "$P/cnn.quarantined"
cp "$cuda/bin/cudnn_adv64_9.dll" "$P/adv.saved" && : >"$cuda/bin/cudnn_adv64_9.dll"
fix_case "procedure 6a: DLLs quarantined after install --into" quarantined-after-install install.files_changed error
mv "$P/cnn.quarantined" "$cuda/bin/cudnn_cnn64_9.dll" && cp "$P/adv.saved" "$cuda/bin/cudnn_adv64_9.dll"
gone "procedure 6a: files put back: install.files_changed is gone" install.files_changed

# 6b. A hand copy (no manifest) on PATH whose cudnn64_9.dll was cut to 0 bytes.
hand=$P/hand/cudnn/bin
mkdir -p "$hand"
cp "$fixtures"/v9.1.0.70/*.dll "$hand/"
unset CUDA_PATH
export WINEPATH="$(win_path "$hand");$tools_win"
: >"$hand/cudnn64_9.dll"
fix_case "procedure 6b: a hand copy's cudnn64_9.dll quarantined to 0 bytes" quarantined-hand-copy-empty cudnn.library_damaged error
cp "$fixtures/v9.1.0.70/cudnn64_9.dll" "$hand/"
# ... and its cudnn_graph64_9.dll deleted (the shim imports it: error 126).
rm "$hand/cudnn_graph64_9.dll"
fix_case "procedure 6b: a hand copy's cudnn_graph64_9.dll quarantined (deleted)" quarantined-hand-copy-deleted windows.dll_load_fails error
cp "$fixtures/v9.1.0.70/cudnn_graph64_9.dll" "$hand/"
gone "procedure 6b: the hand copy restored: windows.dll_load_fails is gone" windows.dll_load_fails

# 6c. A conda environment's copy (Library\bin), with CONDA_PREFIX set.
conda=$P/miniconda3/envs/dl
mkdir -p "$conda/Library/bin" "$conda/conda-meta"
cp "$fixtures"/v9.1.0.70/*.dll "$conda/Library/bin/"
export CONDA_PREFIX=$(win_path "$conda") WINEPATH=$tools_win
check "procedure 6c: doctor finds the conda copy (Library\\bin) and does not ask to put it on PATH" 0,1,3 '
j = json.loads(out)
c = [c for c in j["copies"] if c["root"].lower().replace("\\", "/").endswith("miniconda3/envs/dl")]
assert c, [x["root"] for x in j["copies"]]
assert not [f for f in j["findings"] if f["id"] == "windows.cudnn_not_on_path" and "envs" in f["subject"].lower()], j["findings"]' -- --json doctor
check "procedure 6c: which --for python (the conda env) loads Library\\bin's copy" 0 '
r = json.loads(out)["resolution"]
assert r["found"] and "\\library\\bin\\cudnn64_9.dll" in r["path"].lower(), r' -- --json which --for python --python "$(win_path "$conda")"
unset CONDA_PREFIX

# 6d. An old copy first on PATH: cuDNN 9.1 before the toolkit's 9.19.
old=$P/old/bin
mkdir -p "$old"
cp "$fixtures"/v9.1.0.70/*.dll "$old/"
new=$P/new/bin
mkdir -p "$new"
cp "$fixtures"/v9.19.0.56/*.dll "$new/"
export WINEPATH="$(win_path "$old");$(win_path "$new");$tools_win"
# The fix names no `cudnnup env` (it needs a version selected in cudnnup's store, which a hand-made
# setup does not have; this test found that): which -v, after the PATH is mended.
fix_case "procedure 6d: an old cuDNN 9.1 first on PATH, 9.19 after it" old-first-on-path cudnn.shadowed warning

export WINEPATH="$(win_path "$new");$tools_win"

# 6e. An old cudnn64_9.dll in System32: moved aside (mkdir + move, as administrator), then gone.
sys32="$WINEPREFIX/drive_c/windows/system32"
cp "$fixtures/v9.1.0.70/cudnn64_9.dll" "$fixtures/v9.1.0.70/cudnn_graph64_9.dll" "$sys32/"
fix_case "procedure 6e: an old cuDNN 9.1 in System32, 9.19 on PATH" old-in-system32 cudnn.shadowed warning
# A folder per system folder (C:\cudnn-aside\system32, named as the copy's folder is written), so
# System32's and SysWOW64's copies never overwrite each other.
if [[ ! -e $sys32/cudnn64_9.dll && -f $WINEPREFIX/drive_c/cudnn-aside/system32/cudnn64_9.dll ]]; then
  proc_ok "procedure 6e: the fix moved System32's DLLs to C:\\cudnn-aside\\system32"
else
  proc_fail "procedure 6e: the fix moved System32's DLLs to C:\\cudnn-aside\\system32"
fi
gone "procedure 6e: after the move: cudnn.shadowed is gone" cudnn.shadowed
rm -f "$sys32"/cudnn*64_9.dll

# --- 7. which against a real LoadLibrary: load_cudnn.exe in several PATH arrangements. ---------
# The program's own folder (tools) holds no cuDNN, so it searches as `which` does for a plain program.
proc_load_vs_which() {  # LABEL WINEPATH
  local label=$1 loaded want
  loaded=$(WINEPATH=$2 wine "$P/tools/load_cudnn.exe" 2>/dev/null | tr -d '\r' || true)
  WINEPATH=$2 wine "$exe" --json which >"$P/which.json" 2>/dev/null || true
  want=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["resolution"]
print(r["path"] if r["found"] else "error %d" % r["win32_error"])' "$P/which.json" 2>&1)
  if [[ ${loaded,,} == "${want,,}" && -n $loaded ]]; then
    proc_ok "procedure 7: LoadLibrary and which agree ($label): $loaded"
  else
    proc_fail "procedure 7: LoadLibrary and which agree ($label)" "LoadLibrary: $loaded; which: $want"
  fi
}
mkdir -p "$P/empty"
: >"$P/empty/cudnn64_9.dll"
proc_load_vs_which "new then old" "$(win_path "$new");$(win_path "$old");$tools_win"
proc_load_vs_which "old then new" "$(win_path "$old");$(win_path "$new");$tools_win"
proc_load_vs_which "the toolkit's bin" "$cuda_win\\bin;$tools_win"
proc_load_vs_which "a 0-byte DLL first" "$(win_path "$P/empty");$(win_path "$new");$tools_win"
proc_load_vs_which "no cuDNN on PATH" "$tools_win"
cp "$fixtures/v9.1.0.70/cudnn64_9.dll" "$fixtures/v9.1.0.70/cudnn_graph64_9.dll" "$sys32/"
proc_load_vs_which "System32 before PATH" "$(win_path "$new");$tools_win"
rm -f "$sys32"/cudnn*64_9.dll

# Put back what this section changed: the registry's user PATH, the toolkit, the environment.
proc_restore_reg
wine "$exe" uninstall --into "$cuda_win" >/dev/null 2>&1 || true
unset WINEPATH CUDA_PATH CUDNNUP_HOME T_CUDA
echo "  info  the guide's procedure took $(($(date +%s) - proc_t0)) s under Wine"
