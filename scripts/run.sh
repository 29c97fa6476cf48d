#!/usr/bin/env bash
# One entry point for the README's quick start and for CI.
#   scripts/run.sh doctor   install what is needed, build, run `cudnnup doctor`
#   scripts/run.sh test     install what is needed, build, run the whole test suite
#                           (Linux tests, the build without install support checked,
#                           every fuzz target for 12 s under ASan+UBSan, the
#                           Windows build under Wine, then every release artifact built by
#                           scripts/package.sh and proven by scripts/check-packages.sh, and the
#                           loader differential test inside the Debian 11 root)
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-doctor}"
shift || true
jobs="$(nproc 2>/dev/null || echo 2)"
# Compiler cache outside the clone (ccache's own ~/.cache/ccache, keyed by compiler and sources),
# so a second run recompiles only what changed. CMake reads these for every build below,
# the mingw one (scripts/test-windows.sh) included.
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  # The targets use precompiled headers, which ccache caches only with this sloppiness.
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  # Paths under the clone are hashed relative to it, and the build directory is left out of the
  # hash, so a clone at another path (CI's clones, a second checkout) hits the same entries;
  # without this every new clone compiled everything again.
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
fi

# Runs one stage of the test mode and says how long it took, so a slow CI run shows where.
stage() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "== stage '$name' took $((SECONDS - start)) s (${SECONDS} s since the start)" >&2
}

case "$mode" in
  doctor)
    scripts/install-deps.sh
    cmake --preset default >/dev/null
    cmake --build --preset default -j "$jobs" --target cudnnup
    exec build/src/cudnnup doctor "$@"
    ;;
  test)
    stage install-deps scripts/install-deps.sh --windows --package
    cmake --preset default >/dev/null
    stage build cmake --build --preset default -j "$jobs"
    stage ctest ctest --preset default -j "$jobs"
    stage without-install scripts/test-without-install.sh
    stage fuzz scripts/fuzz.sh 12
    stage windows scripts/test-windows.sh
    # The packages: a Debian 11 root, chroot and dpkg need root (as install-deps.sh, via sudo).
    as_root=()
    [[ $(id -u) -ne 0 ]] && as_root=(sudo --preserve-env=CUDNNUP_CACHE)
    stage package "${as_root[@]}" scripts/package.sh
    stage check-packages "${as_root[@]}" scripts/check-packages.sh
    stage debian11-differential "${as_root[@]}" scripts/debian11-differential.sh   # the loader model on Debian 11's glibc 2.31
    ;;
  *)
    echo "usage: scripts/run.sh doctor|test [args...]" >&2
    exit 2
    ;;
esac
