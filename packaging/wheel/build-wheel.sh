#!/usr/bin/env bash
# Builds the cudnnup wheel: the native binary and its lean child, installed onto the venv's PATH by
# pip (as ruff's wheel does), tagged py3-none-manylinux_2_<N>_x86_64.
#
#   packaging/wheel/build-wheel.sh --binary B --child C --notices N --version V --out DIST [--glibc 2.31]
#
#   --binary B   the cudnnup executable to ship (package.sh passes the portable build)
#   --child C    the cudnnup-child executable that goes beside it
#   --notices N  the licenses of the libraries linked into them (packaging/third-party-notices.sh);
#                it goes into the wheel's .dist-info beside LICENSE
#   --version V  the wheel's version (PEP 440, e.g. 0.1.0)
#   --out DIST   the folder the .whl is written into (created if missing)
#   --glibc G    the oldest glibc the binaries run on, 2.N (default 2.31: the portable build's
#                Debian 11 root); it becomes the platform tag manylinux_2_N_x86_64
#
# Offline: Debian's python3-build and python3-hatchling (1.12) with --no-isolation. Everything is
# staged in a temporary folder, so the source tree gets nothing but DIST/<wheel>. Prints the
# wheel's path on the last line. tests/packaging/wheel_test.sh is its proof.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# Debian's own interpreter: the python3 on PATH may be a pyenv shim without build or hatchling.
python=/usr/bin/python3

usage() {
  echo "usage: packaging/wheel/build-wheel.sh --binary B --child C --notices N --version V --out DIST [--glibc 2.31]" >&2
}
die_usage() {
  echo "build-wheel: $*" >&2
  usage
  exit 2
}

binary='' child='' notices='' version='' out='' glibc=2.31
while (($#)); do
  case $1 in
    --binary | --child | --notices | --version | --out | --glibc)
      (($# >= 2)) || die_usage "$1 needs a value"
      declare "${1#--}=$2"
      shift 2
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    *) die_usage "unknown argument '$1'" ;;
  esac
done
[[ -n $binary ]] || die_usage "--binary is missing (the cudnnup executable, e.g. build/src/cudnnup)"
[[ -n $child ]] || die_usage "--child is missing (cudnnup-child, built beside cudnnup)"
[[ -n $notices ]] || die_usage "--notices is missing (THIRD_PARTY_NOTICES.txt of the build, e.g. build-portable/THIRD_PARTY_NOTICES.txt)"
[[ -s $notices ]] || die_usage "--notices '$notices' is not a non-empty file; scripts/build-portable.sh writes it"
[[ -n $version ]] || die_usage "--version is missing (e.g. --version 0.1.0)"
[[ -n $out ]] || die_usage "--out is missing (the folder for the wheel, e.g. dist)"

# The binaries must be x86-64 ELF executables: the tag says x86_64, and pip keeps the exec bit
# only when the zip entry has one, which hatchling takes from the file.
check_elf() {
  local what=$1 path=$2
  [[ -f $path ]] || die_usage "$what '$path' is not a file; build it first (cmake --build build)"
  [[ -x $path ]] || die_usage "$what '$path' is not executable; chmod +x it or rebuild"
  local header
  header=$(od -An -tx1 -N20 "$path" | tr -d ' \n')
  # \x7fELF, 64-bit (02), little-endian (01) ... e_machine at byte 18: 0x3e = x86-64.
  [[ ${header:0:12} == 7f454c460201 && ${header:36:4} == 3e00 ]] ||
    die_usage "$what '$path' is not an x86-64 ELF executable; give the Linux x86-64 build"
}
check_elf --binary "$binary"
check_elf --child "$child"
[[ $glibc =~ ^2\.[0-9]+$ ]] || die_usage "--glibc '$glibc' is not of the form 2.N (e.g. 2.31)"
# PEP 440 in its plain form (what the binary prints); a local "+x" or a leading "v" is refused
# rather than normalised behind the user's back.
[[ $version =~ ^[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?$ ]] ||
  die_usage "--version '$version' is not a PEP 440 version like 0.1.0 or 0.2.0rc1"

# The tag must not promise an older glibc than the binaries need. The proof fails such a wheel
# (tests/packaging/wheel_test.sh); saying it here too saves a round.
needed=$("$root/scripts/elf-needs.sh" floor "$binary" "$child" 2>/dev/null || true)
if [[ -n $needed ]] && [[ $(printf '%s\n%s\n' "$needed" "$glibc" | sort -V | tail -1) != "$glibc" ]]; then
  echo "build-wheel: warning: the binaries need glibc $needed, newer than the tag's $glibc;" \
    "wheel_test.sh will fail this wheel (build on an older glibc, or pass --glibc $needed)" >&2
fi

# Offline, so the build tools must already be here.
if ! "$python" -c 'import build, hatchling' 2>/dev/null; then
  echo "build-wheel: $python lacks the build tools; apt-get install python3-build python3-hatchling" >&2
  exit 2
fi

stage=$(mktemp -d -t cudnnup-wheel.XXXXXX)
trap 'rm -rf "$stage"' EXIT

# The project folder hatchling sees: this folder's sources, the project's README and LICENSE
# (metadata), and the binaries under bin/ (hatch_build.py maps them to .data/scripts/).
cp "$here/pyproject.toml" "$here/hatch_build.py" "$stage/"
mkdir -p "$stage/cudnnup" "$stage/bin"
cp "$here/cudnnup/__init__.py" "$here/cudnnup/__main__.py" "$stage/cudnnup/"
cp "$root/README.md" "$root/LICENSE" "$stage/"
cp "$notices" "$stage/THIRD_PARTY_NOTICES.txt"
# install -m 755: the staged copies are executable whatever the umask or the source's mode.
install -m 755 "$binary" "$stage/bin/cudnnup"
install -m 755 "$child" "$stage/bin/cudnnup-child"

mkdir -p "$out"
out=$(cd "$out" && pwd)
# hatchling stamps every zip entry with SOURCE_DATE_EPOCH (its default: 2020-02-02): the commit
# time makes the same commit give the same wheel.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 1580601600)}
export CUDNNUP_WHEEL_VERSION=$version CUDNNUP_WHEEL_GLIBC=$glibc
# --no-isolation: offline, with Debian's packages. --skip-dependency-check: Debian's hatchling
# declares editables, which only editable installs import (python3-editables is not installed);
# the import check above stands in for it. Written to a folder of its own first, so the name
# printed is exactly the new wheel.
"$python" -m build --wheel --no-isolation --skip-dependency-check --outdir "$stage/dist" "$stage" >&2
wheels=("$stage"/dist/*.whl)
((${#wheels[@]} == 1)) || { echo "build-wheel: expected one wheel, got: ${wheels[*]}" >&2; exit 1; }
name=$(basename "${wheels[0]}")
mv -f "${wheels[0]}" "$out/$name"
# hatchling writes the wheel through mkstemp (mode 600): make it readable like any download.
chmod 644 "$out/$name"
echo "$out/$name"
