#!/usr/bin/env bash
# The proof of the Windows release zip (packaging/windows/build-zip.sh): its layout, that its
# programs import only Windows' own DLLs, and that its cudnnup.exe runs under Wine with no mingw
# folder on the Windows PATH.
#
#   tests/packaging/windows_zip_test.sh ZIP
#
# Wine runs in a fresh prefix made here (wineboot, as scripts/test-windows.sh does), removed at the
# end. CUDNNUP_TEST_WINEPREFIX=DIR uses an existing prefix instead (quicker; its registry PATH is
# checked for mingw folders first). Prints one "ok: ..." or "FAIL: ..." line per check and exits 0
# only when every check passed (1 when one failed, 2 for a bad argument or a missing tool).
set -euo pipefail

python=/usr/bin/python3

if (($# != 1)) || [[ $1 == -* ]]; then
  echo "usage: tests/packaging/windows_zip_test.sh ZIP   (from packaging/windows/build-zip.sh)" >&2
  exit 2
fi
zip=$1
if [[ ! -f $zip || $zip != *.zip ]]; then
  echo "windows_zip_test: '$zip' is not a .zip file; build one with packaging/windows/build-zip.sh" >&2
  exit 2
fi
for tool in unzip wine wineboot wineserver x86_64-w64-mingw32-objdump timeout; do
  command -v "$tool" >/dev/null ||
    { echo "windows_zip_test: $tool is missing; run scripts/install-deps.sh --windows" >&2; exit 2; }
done
zip=$(cd "$(dirname "$zip")" && pwd)/$(basename "$zip")

failed=0
ok() { echo "ok: $*"; }
fail() {
  echo "FAIL: $*"
  failed=$((failed + 1))
}

work=$(mktemp -d -t cudnnup-zip-test.XXXXXX)
own_prefix=''
cleanup() {
  # Stops only the wineserver of the prefix made here; a CUDNNUP_TEST_WINEPREFIX's is left alone.
  [[ -z $own_prefix ]] || WINEPREFIX=$own_prefix wineserver -k >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# --- Layout: one folder named like the zip, holding cudnnup.exe, LICENSE, THIRD_PARTY_NOTICES.txt,
# README.md (and
# cudnnup-child.exe where the build has one), nothing else.
name=$(basename "$zip" .zip)
if [[ $name =~ ^cudnnup-(.+)-windows-x86_64$ ]]; then
  zip_version=${BASH_REMATCH[1]}
  ok "zip name $name.zip (version $zip_version)"
else
  zip_version=''
  fail "zip name '$name.zip' is not cudnnup-VERSION-windows-x86_64.zip"
fi
unzip -q "$zip" -d "$work/unzipped"
dir=$work/unzipped/$name
entries=$(cd "$work/unzipped" && find . -mindepth 1 | sed 's|^\./||' | sort | paste -sd' ')
expected="$name $name/LICENSE $name/README.md $name/THIRD_PARTY_NOTICES.txt $name/cudnnup.exe"
[[ ! -e $dir/cudnnup-child.exe ]] || expected="$name $name/LICENSE $name/README.md $name/THIRD_PARTY_NOTICES.txt $name/cudnnup-child.exe $name/cudnnup.exe"
if [[ $entries == "$expected" ]]; then
  ok "zip holds $name/ with: $(cd "$dir" && find . -mindepth 1 | sed "s|^\./||" | sort | paste -sd" ")"
else
  fail "zip holds '$entries', expected '$expected'"
fi

# --- Self-contained: every DLL its programs import is Windows' own, so nothing from mingw
# (libstdc++-6.dll, libgcc_s_seh-1.dll, libwinpthread-1.dll) or a library build (libarchive,
# libcurl) has to be beside it. The list is the system DLLs a static mingw-w64 build may import.
system_dlls='advapi32 bcrypt crypt32 dbghelp gdi32 iphlpapi kernel32 msvcrt ntdll ole32 oleaut32
  psapi secur32 shell32 shlwapi ucrtbase user32 userenv version winhttp wldap32 ws2_32'
for exe in "$dir"/*.exe; do
  [[ -f $exe ]] || continue
  imports=$(x86_64-w64-mingw32-objdump -p "$exe" | sed -n 's/^[[:space:]]*DLL Name: //p' | tr -d '\r' | sort -f | paste -sd' ')
  foreign=()
  for dll in $imports; do
    lower=${dll,,}
    lower=${lower%.dll}
    # api-ms-win-* are Windows' API sets (the UCRT's), not files anyone ships.
    [[ " ${system_dlls//$'\n'/ } " == *" $lower "* || $lower == api-ms-win-* ]] || foreign+=("$dll")
  done
  if [[ -z $imports ]]; then
    fail "$(basename "$exe"): objdump -p lists no imported DLLs (not a PE program?)"
  elif ((${#foreign[@]} == 0)); then
    ok "$(basename "$exe") imports only Windows system DLLs: $imports"
  else
    fail "$(basename "$exe") imports DLLs that Windows does not have: ${foreign[*]}"
  fi
done

# --- Run it under Wine, from the unzipped folder, with nothing of mingw on the PATH.
export WINEDEBUG=-all WINEARCH=win64
# No Mono/Gecko installer prompts in a headless prefix: cudnnup needs neither.
export WINEDLLOVERRIDES="mscoree,mshtml="
# WINEPATH adds folders to the Windows PATH; a caller's (e.g. a mingw bin folder) must not help.
unset WINEPATH
start=$SECONDS
if [[ -n ${CUDNNUP_TEST_WINEPREFIX:-} ]]; then
  export WINEPREFIX=$CUDNNUP_TEST_WINEPREFIX
  if [[ ! -f $WINEPREFIX/system.reg ]]; then
    echo "windows_zip_test: CUDNNUP_TEST_WINEPREFIX='$WINEPREFIX' is not a Wine prefix (no system.reg)" >&2
    exit 2
  fi
  # The prefix's own PATH (HKLM ...\Environment and HKCU\Environment) must not name mingw either.
  if grep -il 'mingw' "$WINEPREFIX/system.reg" "$WINEPREFIX/user.reg" >/dev/null 2>&1; then
    fail "the Wine prefix $WINEPREFIX names mingw in its registry (PATH?): use a fresh prefix"
  else
    ok "Wine prefix $WINEPREFIX (existing; its registry names no mingw folder)"
  fi
else
  export WINEPREFIX=$work/prefix
  own_prefix=$WINEPREFIX
  if timeout 300 wineboot -i >/dev/null 2>&1; then
    wineserver -w 2>/dev/null || true  # wait until the prefix is fully written
    ok "fresh Wine prefix ($((SECONDS - start)) s)"
  else
    fail "wineboot -i could not make a Wine prefix in $WINEPREFIX"
  fi
fi

# wine_run OUT ARGS...: cudnnup.exe ARGS from the zip's folder (its own folder first in the DLL
# search, as on Windows); stdout to OUT with CRs removed; returns its exit code. 120 s: a hang is
# a failure, not a stuck test (timeout reports 137 then).
wine_run() {
  local out=$1 rc
  shift
  set +e
  (cd "$dir" && timeout --foreground -s KILL 120 wine ./cudnnup.exe "$@" >"$out.raw" 2>"$out.err")
  rc=$?
  set -e
  tr -d '\r' <"$out.raw" >"$out"
  return "$rc"
}

if wine_run "$work/version" --version; then
  line=$(head -1 "$work/version")
  ok "cudnnup.exe --version: $line"
  printed=$(awk '{print $2}' <<<"$line")
  if [[ $printed == "$zip_version" ]]; then
    ok "cudnnup.exe's version $printed is the zip's"
  else
    fail "cudnnup.exe says version '$printed', the zip's name '$zip_version'"
  fi
else
  fail "cudnnup.exe --version exited $?: $(tr -d '\r' <"$work/version.err" | head -3)"
fi

# doctor exits 0 (no errors) or 1 (errors found: no driver under Wine): docs/exit-codes.md; 2 is a
# usage error or cudnnup's own failure, anything else a crash (Wine reports a missing DLL as
# c0000135, a failed start as 53).
start=$SECONDS
rc=0
wine_run "$work/doctor" doctor --json || rc=$?
if ((rc == 0 || rc == 1)); then
  ok "cudnnup.exe doctor --json exited $rc ($((SECONDS - start)) s)"
else
  fail "cudnnup.exe doctor --json exited $rc: $(tr -d '\r' <"$work/doctor.err" | head -3)"
fi
if doc=$("$python" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["schema"], d["os"])' "$work/doctor" 2>/dev/null); then
  ok "doctor's stdout is one JSON document (schema, os: $doc)"
else
  fail "doctor's stdout is not a JSON document: $(head -c 200 "$work/doctor")"
fi

if ((failed)); then
  echo "windows_zip_test: $failed check(s) failed"
  exit 1
fi
echo "windows_zip_test: all checks passed"
