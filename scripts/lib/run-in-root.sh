# Sourced by the scripts that use a Debian 11 root (scripts/debian11-root.sh makes them).
#
#   run_in_root ROOT [HOST_DIR:DIR_IN_ROOT]... -- SCRIPT
#
# Runs the bash SCRIPT inside ROOT with a clean environment (PATH, HOME, LANG, and JOBS, COMMIT,
# COMMIT_DATE and the CCACHE_* variables when set), /proc mounted and each HOST_DIR bind-mounted at DIR_IN_ROOT, all
# in a private mount namespace: nothing stays mounted when it ends, and the host's mounts never
# see the root's. Needs root (unshare, chroot).
run_in_root() {
  local root=$1; shift
  local binds=()
  while [[ $# -gt 0 && $1 != -- ]]; do binds+=("$1"); shift; done
  [[ ${1:-} == -- ]] || { echo "run_in_root: missing -- before the script" >&2; return 2; }
  shift
  unshare --mount --fork /bin/bash -c '
    set -e
    r=$1; script=$2; shift 2
    # The root is made a mount point of its own, so that inside it `unshare -m` (which makes "/"
    # private) works: the loader differential test changes ld.so.conf in such a namespace.
    mount --bind "$r" "$r"
    for b in "$@"; do
      mkdir -p "$r${b#*:}"
      mount --bind "${b%%:*}" "$r${b#*:}"
    done
    mount -t proc proc "$r/proc"
    exec chroot "$r" /usr/bin/env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
      ${JOBS:+JOBS=$JOBS} ${COMMIT:+COMMIT=$COMMIT} ${COMMIT_DATE:+COMMIT_DATE=$COMMIT_DATE} ${CCACHE_DIR:+CCACHE_DIR=$CCACHE_DIR} ${CCACHE_BASEDIR:+CCACHE_BASEDIR=$CCACHE_BASEDIR} \
      ${CCACHE_NOHASHDIR:+CCACHE_NOHASHDIR=$CCACHE_NOHASHDIR} ${CCACHE_SLOPPINESS:+CCACHE_SLOPPINESS=$CCACHE_SLOPPINESS} \
      /bin/bash -euo pipefail -c "$script"
  ' run_in_root "$root" "$1" "${binds[@]}"
}
