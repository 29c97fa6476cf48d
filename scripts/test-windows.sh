#!/usr/bin/env bash
# Cross-builds cudnnup for Windows x64 with mingw-w64 and runs, under Wine in a fresh prefix:
#   1. the unit tests (cudnnup_tests.exe; Linux-only tests are compiled out or skip themselves),
#   2. end-to-end checks of cudnnup.exe (help, version, exit codes, doctor --json, the probe
#      child loading stub DLLs built from tests/fixtures/windows).
# Prints "windows: N passed, M failed" and exits non-zero when anything failed.
# Needs: scripts/install-deps.sh --windows (Debian 12). Build dir: build-windows (CMake preset
# "windows"). Set CUDNNUP_WINDOWS_JOBS to change the build parallelism (default 2).
set -euo pipefail

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

echo "== cross-building into $build (ninja -j$jobs)"
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake --preset windows >/dev/null
fi
ninja -C "$build" -j"$jobs" cudnnup cudnnup_tests cudnnup_windows_fixture_dlls

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

echo "== unit tests under Wine"
xml=$work/unit.xml
set +e
xml_win=$(winepath -w "$xml" 2>/dev/null || echo "$xml")
wine "$build/tests/cudnnup_tests.exe" --gtest_output="xml:$xml_win" --gtest_brief=1 2>&1 |
  tr -d '\r'
unit_rc=${PIPESTATUS[0]}
set -e
if [[ ! -s $xml ]]; then
  echo "test-windows: the unit tests wrote no result file (exit code $unit_rc)" >&2
  failed=$((failed + 1))
  failures+=("unit tests did not run (exit $unit_rc)")
else
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
  echo "unit tests under Wine: $u_passed passed, $u_failed failed, $u_skipped skipped"
  passed=$((passed + u_passed))
  failed=$((failed + u_failed))
  skipped=$((skipped + u_skipped))
  if ((u_failed > 0)); then failures+=("$u_failed unit test(s)"); fi
  if ((unit_rc != 0 && u_failed == 0)); then
    failed=$((failed + 1))
    failures+=("cudnnup_tests.exe exited with $unit_rc")
  fi
fi

echo "== end-to-end checks of cudnnup.exe under Wine"
exe=$build/src/cudnnup.exe
fixtures=$build/tests/fixtures/windows
# check NAME EXPECTED_RC[,RC...] PYTHON_CHECK -- ARGS...: runs cudnnup.exe ARGS, checks the exit
# code and runs PYTHON_CHECK with `out` (stdout) and `err` (stderr) bound; it must not raise.
check() {
  local name=$1 codes=$2 py=$3
  shift 4
  local out=$work/out err=$work/err rc
  set +e
  wine "$exe" "$@" >"$out" 2>"$err"
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
      sed 's/^/        stdout: /' "$out" | head -5
      sed 's/^/        stderr: /' "$err" | head -5
      failed=$((failed + 1))
      failures+=("$name")
      ;;
  esac
}

check "--help teaches and exits 0" 0 'assert "cudnnup doctor" in out, out[:200]' -- --help
check "--version" 0 'assert out.startswith("cudnnup "), out' -- --version
check "no command is a usage error (2)" 2 'assert "subcommand" in err.lower(), err' --
check "unknown option is a usage error (2)" 2 'assert "not expected" in err or "--definitely-not" in err, err' -- doctor --definitely-not
check "doctor --json prints one JSON document" 0,1,3 '
if not out.strip():
    raise SystemExit("doctor printed nothing: the doctor command is not implemented in this build yet")
json.loads(out)' -- doctor --json
check "probe loads a stub cudnn64_9.dll" 0 '
j = json.loads(out); assert j["loaded"] is True, j; assert j["version"] == 91900, j' -- __probe cudnn "$fixtures/v9.19.0.56/cudnn64_9.dll"
mkdir -p "$work/alone" && cp "$fixtures/v9.19.0.56/cudnn64_9.dll" "$work/alone/"
check "probe reports a missing sub-DLL as error 126" 0 '
j = json.loads(out); assert j["loaded"] is False, j; assert "error 126" in j["error"], j' -- __probe cudnn "$work/alone/cudnn64_9.dll"
: >"$work/empty.dll"
check "probe reports a 0-byte DLL" 0 '
j = json.loads(out); assert j["loaded"] is False, j; assert "empty.dll" in j["error"], j' -- __probe cudnn "$work/empty.dll"

echo
echo "windows: $passed passed, $failed failed ($skipped skipped)"
if ((failed > 0)); then
  printf 'failed: %s\n' "${failures[@]}"
  exit 1
fi
