#!/usr/bin/env bash
# Builds the Windows release zip from the mingw-w64 cross build:
#
#   packaging/windows/build-zip.sh --exe E --notices N --version V --out DIST
#
#   --exe E      cudnnup.exe (build-windows/src/cudnnup.exe); a cudnnup-child.exe beside it goes
#                in too (the Windows build makes none today: it links statically, starts fast)
#   --notices N  the licenses of the libraries linked into it (packaging/third-party-notices.sh)
#   --version V  the release version, in the zip's name (e.g. 0.1.0)
#   --out DIST   the folder the zip is written into (created if missing)
#
# Writes DIST/cudnnup-V-windows-x86_64.zip holding one folder of the same name: cudnnup.exe,
# LICENSE, THIRD_PARTY_NOTICES.txt, README.md. The same inputs give the same bytes: fixed entry order, every timestamp set
# to SOURCE_DATE_EPOCH (default: the commit's time), no Unix extra fields. Prints the zip's path
# on the last line. tests/packaging/windows_zip_test.sh is its proof.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

usage() {
  echo "usage: packaging/windows/build-zip.sh --exe E --notices N --version V --out DIST" >&2
}
die_usage() {
  echo "build-zip: $*" >&2
  usage
  exit 2
}

exe='' notices='' version='' out=''
while (($#)); do
  case $1 in
    --exe | --notices | --version | --out)
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
[[ -n $exe ]] || die_usage "--exe is missing (the Windows build's cudnnup.exe, e.g. build-windows/src/cudnnup.exe)"
[[ -n $notices ]] || die_usage "--notices is missing (THIRD_PARTY_NOTICES.txt of the Windows build)"
[[ -s $notices ]] || die_usage "--notices '$notices' is not a non-empty file; write it with packaging/third-party-notices.sh"
[[ -n $version ]] || die_usage "--version is missing (e.g. --version 0.1.0)"
[[ -n $out ]] || die_usage "--out is missing (the folder for the zip, e.g. dist)"
command -v zip >/dev/null || { echo "build-zip: zip is missing; apt-get install zip" >&2; exit 2; }

# A PE32+ x86-64 program: "MZ", then at the offset in bytes 60..63 "PE\0\0" and machine 0x8664.
check_pe() {
  local what=$1 path=$2
  [[ -f $path ]] || die_usage "$what '$path' is not a file; build it first (scripts/test-windows.sh or cmake --preset windows)"
  local pe_offset
  pe_offset=$(od -An -tu4 -j60 -N4 "$path" | tr -d ' ')
  [[ $(head -c2 "$path") == MZ && $(od -An -tx1 -j"$pe_offset" -N6 "$path" | tr -d ' \n') == 504500006486 ]] ||
    die_usage "$what '$path' is not an x86-64 Windows program; give the mingw-w64 build's cudnnup.exe"
}
check_pe --exe "$exe"
# Letters, digits, dots, plus and minus: the version is part of a file name.
[[ $version =~ ^[0-9][0-9A-Za-z.+-]*$ ]] || die_usage "--version '$version' is not a version like 0.1.0"

name=cudnnup-$version-windows-x86_64
files=(cudnnup.exe)
child=$(dirname "$exe")/cudnnup-child.exe
if [[ -f $child ]]; then
  check_pe "cudnnup-child.exe beside --exe" "$child"
  files+=(cudnnup-child.exe)
fi
files+=(LICENSE THIRD_PARTY_NOTICES.txt README.md)

stage=$(mktemp -d -t cudnnup-zip.XXXXXX)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
cp "$exe" "$stage/$name/cudnnup.exe"
[[ ! -f $child ]] || cp "$child" "$stage/$name/cudnnup-child.exe"
cp "$root/LICENSE" "$root/README.md" "$stage/$name/"
cp "$notices" "$stage/$name/THIRD_PARTY_NOTICES.txt"

# zip stores local DOS times: with TZ=UTC and every mtime at SOURCE_DATE_EPOCH, the bytes do not
# depend on when or where this runs. Modes are normalised for the same reason (and unzip on
# Linux then gives an executable .exe).
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 1580601600)}
chmod 755 "$stage/$name" "$stage/$name"/*.exe
chmod 644 "$stage/$name/LICENSE" "$stage/$name/THIRD_PARTY_NOTICES.txt" "$stage/$name/README.md"
touch -h -d "@$epoch" "$stage/$name" "$stage/$name"/*

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/$name.zip"  # zip would otherwise add to an old one
# -X: no extra fields (uid/gid, extended times); -D is not used, so the folder has its own entry;
# the names are listed, in this order, rather than found.
(cd "$stage" && TZ=UTC zip -X -9 -q "$out/$name.zip" "$name/" "${files[@]/#/$name/}")
echo "$out/$name.zip"
