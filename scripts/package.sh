#!/usr/bin/env bash
# Builds every release artifact into dist/ (docs/packaging.md):
#   cudnnup-V-linux-x86_64.tar.gz       the portable binary (glibc >= its floor, nothing else
#                                       shared), its lean child, LICENSE, THIRD_PARTY_NOTICES.txt
#                                       (the licenses of the libraries linked in), README.md,
#                                       completions
#   cudnnup_V_amd64.deb                 CPack, built in the Debian 11 root (Depends: libc6 (>= floor))
#   cudnnup-V-py3-none-manylinux_2_N_x86_64.whl   the same two binaries on the venv's PATH
#   cudnnup-V-windows-x86_64.zip        the mingw-w64 build
# V is the binary's own version (`cudnnup --version`), N the glibc floor its symbols need.
# scripts/check-packages.sh proves each one.
#
# Usage: scripts/package.sh [--no-windows]
# Needs: scripts/install-deps.sh --package (root, debootstrap, deb-src entries); the Windows zip
# also --windows (mingw-w64). Timestamps come from SOURCE_DATE_EPOCH, else the commit's time.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
windows=1
case ${1:-} in
  "") ;;
  --no-windows) windows=0 ;;
  *) echo "usage: scripts/package.sh [--no-windows]" >&2; exit 2 ;;
esac
cd "$repo"
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

scripts/build-portable.sh
bin=build-portable/src
version=$("$bin/cudnnup" --version | awk 'NR == 1 { print $2 }')
floor=$(scripts/elf-needs.sh floor "$bin/cudnnup" "$bin/cudnnup-child")
if foreign=$(scripts/elf-needs.sh foreign "$bin/cudnnup" "$bin/cudnnup-child"); then :; else
  echo "package: the portable binaries need shared libraries beyond glibc: $foreign" >&2
  exit 2
fi
mkdir -p dist
rm -f dist/cudnnup-"$version"-* dist/cudnnup_"$version"_*

# The tarball: one folder, fixed order, owner and times, so one commit gives the same bytes.
name=cudnnup-$version-linux-x86_64
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name/completions"
cp "$bin/cudnnup" "$bin/cudnnup-child" LICENSE build-portable/THIRD_PARTY_NOTICES.txt README.md "$stage/$name/"
cp build-portable/completions/cudnnup "$stage/$name/completions/cudnnup.bash"
cp build-portable/completions/_cudnnup build-portable/completions/cudnnup.fish "$stage/$name/completions/"
tar -C "$stage" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner -cf - "$name" |
  gzip -n -9 >"dist/$name.tar.gz"

cp build-portable/cudnnup_"$version"_amd64.deb dist/
packaging/wheel/build-wheel.sh --binary "$bin/cudnnup" --child "$bin/cudnnup-child" \
  --notices build-portable/THIRD_PARTY_NOTICES.txt --version "$version" \
  --out dist --glibc "$floor" >/dev/null

if ((windows)); then
  scripts/build-windows-deps.sh >/dev/null
  cmake --preset windows >/dev/null
  cmake --build build-windows --target cudnnup >/dev/null
  # The Windows build links libarchive (scripts/build-windows-deps.sh), mingw-w64's zlib and its
  # runtime (winpthreads) statically; CLI11, nlohmann-json and fmt are header-only.
  . scripts/lib/notices.sh
  archive_version=$(awk '{ print $NF }' build-windows-deps/prefix/VERSION)
  [[ -n $archive_version ]] || { echo "package: build-windows-deps/prefix/VERSION names no libarchive version" >&2; exit 2; }
  zlib_version=$(package_version /var/lib/dpkg libz-mingw-w64-dev)
  mingw_version=$(package_version /var/lib/dpkg mingw-w64-x86-64-dev)
  header_only_notices
  packaging/third-party-notices.sh build-windows/THIRD_PARTY_NOTICES.txt \
    "libarchive $archive_version|build-windows-deps/prefix/COPYING.libarchive" \
    "zlib $zlib_version|/usr/share/doc/libz-mingw-w64-dev/copyright" \
    "mingw-w64 runtime and winpthreads $mingw_version|/usr/share/doc/mingw-w64-x86-64-dev/copyright" \
    "${header_only[@]}"
  packaging/windows/build-zip.sh --exe build-windows/src/cudnnup.exe --notices build-windows/THIRD_PARTY_NOTICES.txt \
    --version "$version" --out dist >/dev/null
fi
echo "== dist/ (cudnnup $version, glibc >= $floor):"
(cd dist && ls -l cudnnup-"$version"-* cudnnup_"$version"_* | awk '{ printf "   %10d  %s\n", $5, $9 }')
