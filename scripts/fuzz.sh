#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, ASan + UBSan, build-fuzz/) and runs each for a fixed time.
#   scripts/fuzz.sh [SECONDS] [TARGET...]    SECONDS per target (default 15); TARGET like "elf"
# CI runs `scripts/fuzz.sh 12` (scripts/run.sh test). A longer run of one target, keeping what it
# finds in a corpus of its own: docs/security.md, "Fuzzing". Exits 1 when a target crashes,
# leaks, times out or breaks its oracle; the input is saved under build-fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-15}"
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then  # every fuzz/<target>_fuzz.cc
  for f in fuzz/*_fuzz.cc; do f="${f##*/}"; targets+=("${f%_fuzz.cc}"); done
fi

cxx=""
for c in clang++ clang++-14; do
  if command -v "$c" >/dev/null; then cxx="$c"; break; fi
done
if [[ -z $cxx ]]; then
  echo "fuzz: skipped: clang++ not found (scripts/install-deps.sh installs clang-14 and libclang-rt-14-dev)"
  exit 0
fi
cc="${cxx/clang++/clang}"
if [[ ! -f "$("$cxx" -print-runtime-dir)/libclang_rt.fuzzer-x86_64.a" ]]; then
  echo "fuzz: skipped: $cxx has no libFuzzer runtime (install libclang-rt-14-dev)"
  exit 0
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake --preset fuzz -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" "${launcher[@]}" >/dev/null
build_targets=()
for t in "${targets[@]}"; do build_targets+=("${t}_fuzz"); done
cmake --build build-fuzz -j "$(nproc 2>/dev/null || echo 2)" --target "${build_targets[@]}"

# The committed seeds stay as they are: new inputs go to a scratch corpus listed first.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
failed=()
printf '%-18s %12s %8s  %s\n' target executions seconds result
for t in "${targets[@]}"; do
  mkdir -p "$scratch/$t" "build-fuzz/artifacts/$t"
  log="$scratch/$t.log"
  start=$SECONDS
  # One job, in process (what -jobs=1 means without a worker): -max_total_time bounds it,
  # -timeout turns a hang on one input into a failure, -print_final_stats reports executions.
  # A target with a dictionary (fuzz/<target>.dict) gets it.
  dict=()
  [[ -f fuzz/$t.dict ]] && dict=(-dict="fuzz/$t.dict")
  set +e
  "build-fuzz/fuzz/${t}_fuzz" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
    "${dict[@]}" -artifact_prefix="build-fuzz/artifacts/$t/" "$scratch/$t" "fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  set -e
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  result=ok
  if ((rc != 0)); then
    result="FAILED (exit $rc): $(grep -a -m1 -E 'ERROR: |runtime error:|fuzz oracle violated' "$log" || echo 'see log')"
    failed+=("$t")
    tail -n 60 "$log" >&2
  fi
  printf '%-18s %12s %8s  %s\n' "$t" "${execs:-?}" "$((SECONDS - start))" "$result"
done
if ((${#failed[@]})); then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]} (inputs in build-fuzz/artifacts/)" >&2
  exit 1
fi
