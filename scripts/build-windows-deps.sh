#!/usr/bin/env bash
# Builds the C libraries the Windows cross-build needs and Debian ships no mingw-w64 build of:
# libarchive, from Debian 12's own source package (`apt-get source libarchive`, so Debian's
# security patches are in), as a static library with only zlib (Windows cuDNN archives are .zip,
# deflate). Everything else (other codecs, bsdtar/bsdcpio/bsdcat, tests, crypto) is off, so it
# builds in about a minute on two cores.
#
# Output: build-windows-deps/prefix/{include/archive.h,include/archive_entry.h,lib/libarchive_static.a}
# (git-ignored). Idempotent: does nothing when that prefix already holds the same Debian version.
# Needs: scripts/install-deps.sh --windows (deb-src lines, dpkg-dev, libz-mingw-w64-dev, mingw-w64).
# Used by: scripts/test-windows.sh (before configuring); by hand:
#   scripts/build-windows-deps.sh && cmake --preset windows
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps=$root/build-windows-deps
prefix=$deps/prefix
jobs=${CUDNNUP_WINDOWS_JOBS:-2}
mingw_root=/usr/x86_64-w64-mingw32

if [[ ! -f $mingw_root/lib/libz.a ]]; then
  echo "build-windows-deps: $mingw_root/lib/libz.a is missing; run scripts/install-deps.sh --windows" >&2
  exit 2
fi

# The version apt would fetch now; rebuild when Debian publishes a new one (a security update).
version=$(apt-cache showsrc libarchive 2>/dev/null | awk '/^Version:/ {print $2}' | sort -V | tail -1)
if [[ -z $version ]]; then
  echo "build-windows-deps: apt knows no source package libarchive; run scripts/install-deps.sh --windows (it adds the deb-src lines)" >&2
  exit 2
fi
if [[ -f $prefix/lib/libarchive_static.a && "$(cat "$prefix/VERSION" 2>/dev/null)" == "libarchive $version" ]]; then
  echo "== libarchive $version for mingw-w64 already built ($prefix)"
  exit 0
fi

echo "== building libarchive $version (Debian source package) for mingw-w64 into $prefix"
rm -rf "$deps/src" "$deps/build" "$prefix"
mkdir -p "$deps/src"
(cd "$deps/src" && apt-get source -qq "libarchive=$version" >/dev/null 2>"$deps/src/apt.log") || {
  cat "$deps/src/apt.log" >&2
  echo "build-windows-deps: apt-get source libarchive=$version failed (are the deb-src entries that scripts/install-deps.sh --windows derived from the apt sources reachable?)" >&2
  exit 2
}
src=$(find "$deps/src" -mindepth 1 -maxdepth 1 -type d -name 'libarchive-*' | head -1)

off=(ENABLE_MBEDTLS ENABLE_NETTLE ENABLE_OPENSSL ENABLE_LIBB2 ENABLE_LZ4 ENABLE_LZO ENABLE_LZMA ENABLE_ZSTD
     ENABLE_BZip2 ENABLE_LIBXML2 ENABLE_EXPAT ENABLE_PCREPOSIX ENABLE_LIBGCC ENABLE_CNG ENABLE_TAR ENABLE_CPIO
     ENABLE_CAT ENABLE_XATTR ENABLE_ACL ENABLE_ICONV ENABLE_TEST ENABLE_INSTALL ENABLE_WERROR)
flags=()
for o in "${off[@]}"; do flags+=("-D$o=OFF"); done
cmake -S "$src" -B "$deps/build" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchain-mingw-w64.cmake" \
  -DCMAKE_BUILD_TYPE=Release \
  -DPOSIX_REGEX_LIB=NONE -DENABLE_ZLIB=ON -DZLIB_INCLUDE_DIR="$mingw_root/include" -DZLIB_LIBRARY="$mingw_root/lib/libz.a" \
  "${flags[@]}" >"$deps/configure.log" 2>&1 || {
  tail -30 "$deps/configure.log" >&2
  echo "build-windows-deps: configuring libarchive failed (full log: $deps/configure.log)" >&2
  exit 2
}
ninja -C "$deps/build" -j"$jobs" archive_static >"$deps/build.log" 2>&1 || {
  tail -30 "$deps/build.log" >&2
  echo "build-windows-deps: building libarchive failed (full log: $deps/build.log)" >&2
  exit 2
}
mkdir -p "$prefix/include" "$prefix/lib"
cp "$src/libarchive/archive.h" "$src/libarchive/archive_entry.h" "$prefix/include/"
cp "$(find "$deps/build" -name 'libarchive_static.a' | head -1)" "$prefix/lib/"
cp "$src/COPYING" "$prefix/COPYING.libarchive"
echo "libarchive $version" >"$prefix/VERSION"
echo "== libarchive $version built: $prefix/lib/libarchive_static.a"
