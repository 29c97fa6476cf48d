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
# Stopped early (CI cancelled, ^C): the fuzzers still running stop too.
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$scratch"' EXIT
jobs="$(nproc 2>/dev/null || echo 2)"

# One target: its result line goes to $scratch/$t.result, its exit status to $scratch/$t.rc and
# its log to $scratch/$t.log.
run_target() {
  local t=$1 start=$SECONDS rc execs result
  local log="$scratch/$t.log"
  mkdir -p "$scratch/$t" "build-fuzz/artifacts/$t"
  # One job, in process (what -jobs=1 means without a worker): -max_total_time bounds it,
  # -timeout turns a hang on one input into a failure, -print_final_stats reports executions.
  # A target with a dictionary (fuzz/<target>.dict) gets it.
  local dict=()
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
  fi
  printf '%-18s %12s %8s  %s\n' "$t" "${execs:-?}" "$((SECONDS - start))" "$result" >"$scratch/$t.result"
  echo "$rc" >"$scratch/$t.rc"
}

# Each target is one process on one core, so as many run at once as there are cores: every
# target still gets its full SECONDS, and CI's fuzzing takes 1/nproc of the time. (nproc counts
# the cores this process may use, not a cgroup's CPU quota: in a container limited below its
# cores, give fewer targets at a time by running fuzz.sh per target.)
printf '%-18s %12s %8s  %s\n' target executions seconds result
running=0
for t in "${targets[@]}"; do
  if ((running >= jobs)); then wait -n || true; running=$((running - 1)); fi
  run_target "$t" &
  running=$((running + 1))
done
wait
failed=()
for t in "${targets[@]}"; do
  cat "$scratch/$t.result" 2>/dev/null || echo "$t: ended without a result (see the log below)"
  if [[ $(cat "$scratch/$t.rc" 2>/dev/null) != 0 ]]; then
    failed+=("$t")
    tail -n 60 "$scratch/$t.log" >&2
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]} (inputs in build-fuzz/artifacts/)" >&2
  exit 1
fi
