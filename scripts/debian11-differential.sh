#!/usr/bin/env bash
# The loader differential test (docs/loader-differential.md) inside the Debian 11 root: glibc
# 2.31's loader searches differently from Debian 12's 2.36 (the legacy hwcaps directories, no
# glibc-hwcaps before 2.33), and the loader model must follow the glibc it runs on. The test
# program, its fixtures and the cudnnup it checks are built there by Debian 11's compiler
# (scripts/build-portable.sh --tests); the oracle processes run on the root's own ld.so.
#
# Usage: scripts/debian11-differential.sh [SCENARIOS] [FIRST_SEED]   (default 330 from seed 1, as on the host;
#        as root). The test prints the building blocks' counts and any disagreeing seed.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
scenarios=${1:-330}
seed=${2:-1}
[[ $scenarios =~ ^[0-9]+$ && $seed =~ ^[0-9]+$ ]] || { echo "usage: $0 [SCENARIOS] [FIRST_SEED]" >&2; exit 2; }
"$repo/scripts/build-portable.sh" --tests
root=$("$repo/scripts/debian11-root.sh" build)
. "$repo/scripts/lib/run-in-root.sh"
echo "== loader differential in the Debian 11 root: $scenarios scenarios from seed $seed" >&2
run_in_root "$root" "$repo:/src" "$repo/build-portable:/build" "$repo/build-portable-tests:/build-tests" -- "
  ldd --version | sed -n 1p   # sed reads to the end: head could make ldd die of SIGPIPE under pipefail
  cd /tmp
  CUDNNUP_DIFF_SCENARIOS=$scenarios CUDNNUP_DIFF_SEED=$seed \
    /build-tests/tests/cudnnup_disk_tests --gtest_filter='LoaderDifferential.*' --gtest_color=no
"
