#!/usr/bin/env bash
# The build without install support (-DCUDNNUP_WITH_INSTALL=OFF: no archive reader and no
# downloads; docs/commands/install.md), so that the option cannot stop linking unseen again: the
# program and its lean child are built (objects the option does not change come from the main
# build's compiler cache), the child must need nothing beyond glibc, `doctor --deep` must run
# (SHA-256 stays) and `uninstall` must say it is not in this build. Its whole test suite is
# `ctest --test-dir build-without-install` after `cmake --build build-without-install`; CI leaves
# it out for time.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc 2>/dev/null || echo 2)"
dir=build-without-install
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCUDNNUP_WITH_INSTALL=OFF -DCUDNNUP_BUILD_BENCH=OFF >/dev/null
cmake --build "$dir" -j "$jobs" --target cudnnup cudnnup-child

needed=$(readelf -d "$dir/src/cudnnup-child" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
for lib in $needed; do
  case $lib in
    libc.so.*|libm.so.*|ld-linux*|libdl.so.*|libpthread.so.*|librt.so.*) ;;
    *) echo "without-install: cudnnup-child needs $lib (only glibc expected): $needed" >&2; exit 1 ;;
  esac
done
"$dir/src/cudnnup" doctor --deep --json >/dev/null || [[ $? -le 1 ]]
set +e
"$dir/src/cudnnup" uninstall 9.19 2>/dev/null
rc=$?
set -e
if [[ $rc -ne 2 ]]; then
  echo "without-install: uninstall exited $rc, expected 2 (not available in this build)" >&2
  exit 1
fi
echo "without-install: built; cudnnup-child needs only $needed; doctor --deep runs; uninstall exits 2"
