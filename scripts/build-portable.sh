#!/usr/bin/env bash
# Builds the portable Linux cudnnup (docs/packaging.md): x86_64, no shared library beyond glibc,
# and a glibc floor of 2.31 (Debian 11, Ubuntu 20.04). It is compiled inside a Debian 11 root
# (scripts/debian11-root.sh) with Debian 11's own GCC 10, binutils and static archives, because
# Debian 12's libstdc++.a and libgcc_eh.a reference glibc 2.32-2.36 symbols (docs/design.md,
# "The portable binary"). Linked statically:
#   libstdc++, libgcc              -static-libstdc++ -static-libgcc (GCC 10's, built on glibc 2.31)
#   OpenSSL (libcrypto, libssl), zlib, xz   Debian 11's own libssl-dev, zlib1g-dev, liblzma-dev
#   libarchive, libcurl            this machine's Debian source packages (`apt-get source`, with
#                                  Debian's patches), built in the root with only what cudnnup
#                                  uses: libarchive with zlib and xz; libcurl with HTTP(S) only,
#                                  OpenSSL, no CA path compiled in (chosen at run time).
#   mimalloc                       the same way, as one object that replaces malloc in cudnnup
#                                  (not in its child): doctor makes ~47,000 small allocations and
#                                  glibc's malloc spent a fifth of its instructions on them
#                                  (docs/benchmarks.md, docs/design.md "The portable binary").
#
# Usage: scripts/build-portable.sh [--jobs N] [--tests]
#   --tests  also builds the disk test program (and its fixtures) there, in build-portable-tests/,
#            for scripts/debian11-differential.sh: the loader differential test on glibc 2.31
# Output: build-portable/src/cudnnup and cudnnup-child (stripped), and build-portable/cudnnup_V_amd64.deb
# (CPack, cmake/install_rules.cmake), git-ignored.
# Cache (outside the clone), under ${CUDNNUP_CACHE:-$HOME/.cache/cudnnup}: portable-deps-KEY, keyed
# by the root, the two source package versions and the recipe; ccache-debian11, the root's ccache.
# Needs root (chroot), debootstrap and deb-src entries: scripts/install-deps.sh --package.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=$(nproc)
tests=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --tests) tests=1; shift ;;
    *) echo "usage: $0 [--jobs N] [--tests]" >&2; exit 2 ;;
  esac
done

root=$("$repo/scripts/debian11-root.sh" build)
cache=${CUDNNUP_CACHE:-$HOME/.cache/cudnnup}

# The source package versions apt would fetch now: a Debian security update makes a new key.
source_version() {
  apt-cache showsrc "$1" 2>/dev/null | awk '/^Version:/ {print $2}' | sort -V | tail -1
}
archive_version=$(source_version libarchive)
curl_version=$(source_version curl)
mimalloc_version=$(source_version mimalloc)
if [[ -z $archive_version || -z $curl_version || -z $mimalloc_version ]]; then
  echo "build-portable: apt knows no source package libarchive/curl/mimalloc; run scripts/install-deps.sh --package (it adds deb-src entries derived from the apt sources)" >&2
  exit 2
fi
# The root's own ccache (Debian 11's ccache 4.2; its entries are not mixed with the host's).
ccache_dir=$cache/ccache-debian11
mkdir -p "$ccache_dir" "$repo/build-portable" "$repo/build-portable-tests"

# Scripts run inside the root with the clone at /src, the build tree at /build, the dependency
# prefix at /deps, ccache's directory at /ccache and the test build at /build-tests
# (scripts/lib/run-in-root.sh).
. "$repo/scripts/lib/run-in-root.sh"
in_root() {
  CCACHE_DIR=/ccache CCACHE_BASEDIR=/ CCACHE_NOHASHDIR=1 \
  CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime \
    run_in_root "$root" "$repo:/src" "$repo/build-portable:/build" "$deps:/deps" "$ccache_dir:/ccache" \
      "$repo/build-portable-tests:/build-tests" -- "$1"
}
export JOBS=$jobs

build_deps() {
  local tmp=$deps.partial
  rm -rf "$tmp"; mkdir -p "$tmp/src"
  echo "== libarchive $archive_version, curl $curl_version and mimalloc $mimalloc_version (Debian source packages) for the portable build" >&2
  (cd "$tmp/src" && apt-get source -qq "libarchive=$archive_version" "curl=$curl_version" "mimalloc=$mimalloc_version" >apt.log 2>&1) || {
    cat "$tmp/src/apt.log" >&2
    echo "build-portable: apt-get source failed (are the deb-src entries reachable?)" >&2
    exit 2
  }
  # Inside the root the prefix is /deps (a bind mount of $tmp while it is built).
  deps=$tmp in_root '
    cd /deps/src
    archive_src=$(find . -mindepth 1 -maxdepth 1 -type d -name "libarchive-*")
    curl_src=$(find . -mindepth 1 -maxdepth 1 -type d -name "curl-*")
    mimalloc_src=$(find . -mindepth 1 -maxdepth 1 -type d -name "mimalloc-*")
    off=""
    for o in MBEDTLS NETTLE OPENSSL LIBB2 LZ4 LZO ZSTD BZip2 LIBXML2 EXPAT PCREPOSIX LIBGCC CNG TAR CPIO CAT XATTR ACL ICONV TEST WERROR; do
      off="$off -DENABLE_$o=OFF"
    done
    cmake -S "$archive_src" -B /deps/build-archive -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
      -DCMAKE_INSTALL_PREFIX=/deps -DENABLE_ZLIB=ON -DENABLE_LZMA=ON -DPOSIX_REGEX_LIB=NONE $off >/deps/archive-configure.log
    ninja -C /deps/build-archive -j"$JOBS" archive_static >/deps/archive-build.log
    mkdir -p /deps/include /deps/lib
    cp "$archive_src/libarchive/archive.h" "$archive_src/libarchive/archive_entry.h" /deps/include/
    cp "$(find /deps/build-archive -name libarchive.a | head -1)" /deps/lib/libarchive.a
    # HTTP and HTTPS only, through OpenSSL; no CA bundle or path compiled in: the adapter chooses
    # it at run time (src/adapters/ca_bundle.cc), since the binary runs on every Linux family.
    cmake -S "$curl_src" -B /deps/build-curl -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
      -DCMAKE_INSTALL_PREFIX=/deps -DBUILD_SHARED_LIBS=OFF -DBUILD_CURL_EXE=OFF -DBUILD_TESTING=OFF \
      -DHTTP_ONLY=ON -DCURL_USE_OPENSSL=ON -DCURL_ZLIB=ON -DENABLE_THREADED_RESOLVER=ON \
      -DCURL_CA_BUNDLE=none -DCURL_CA_PATH=none -DCURL_CA_FALLBACK=OFF \
      -DUSE_LIBIDN2=OFF -DUSE_NGHTTP2=OFF -DCURL_USE_LIBSSH2=OFF -DCURL_USE_LIBPSL=OFF -DCURL_BROTLI=OFF -DCURL_ZSTD=OFF \
      -DCURL_USE_GSSAPI=OFF -DCURL_DISABLE_LDAP=ON -DCURL_DISABLE_LDAPS=ON -DENABLE_UNIX_SOCKETS=OFF >/deps/curl-configure.log
    ninja -C /deps/build-curl -j"$JOBS" libcurl >/deps/curl-build.log
    cp -r "$curl_src/include/curl" /deps/include/
    cp "$(find /deps/build-curl -name libcurl.a | head -1)" /deps/lib/libcurl.a
    # mimalloc as the one object file its build makes for this (static.c: every source in one
    # translation unit, malloc/free/... overridden), linked into cudnnup ahead of glibc; secure mode
    # and statistics off, as in Debian'"'"'s own build.
    cmake -S "$mimalloc_src" -B /deps/build-mimalloc -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DMI_BUILD_OBJECT=ON -DMI_BUILD_STATIC=OFF -DMI_BUILD_SHARED=OFF -DMI_BUILD_TESTS=OFF -DMI_OVERRIDE=ON \
      -DMI_SECURE=OFF >/deps/mimalloc-configure.log
    ninja -C /deps/build-mimalloc -j"$JOBS" mimalloc-obj >/deps/mimalloc-build.log
    cp "$(find /deps/build-mimalloc -name "static.c.o" | head -1)" /deps/lib/mimalloc.o
    cp "$archive_src/COPYING" /deps/COPYING.libarchive; cp "$curl_src/COPYING" /deps/COPYING.curl
    cp "$mimalloc_src/LICENSE" /deps/COPYING.mimalloc
    rm -rf /deps/build-archive /deps/build-curl /deps/build-mimalloc /deps/src
  ' || { echo "build-portable: building libarchive/curl in the Debian 11 root failed (logs in $tmp)" >&2; exit 2; }
  printf 'libarchive %s\ncurl %s\nmimalloc %s\n' "$archive_version" "$curl_version" "$mimalloc_version" >"$tmp/VERSION"
  mv "$tmp" "$deps"
}

# Keyed by the root, both source versions and the recipe above.
deps=$cache/portable-deps-$(printf '%s\n' "$(basename "$root")" "$archive_version" "$curl_version" "$mimalloc_version" "$(declare -f build_deps)" |
                             sha256sum | cut -c1-12)
[[ -f $deps/VERSION ]] || build_deps
# CLI11, nlohmann-json and fmt are header-only: the portable build compiles against this machine's
# Debian 12 headers, the versions the code is written and tested against.
# rsync-like: copied only where they changed, so their times stay and nothing rebuilds for them.
headers=$repo/build-portable/third_party_headers
mkdir -p "$headers"
for lib in CLI nlohmann fmt; do
  [[ -d /usr/include/$lib ]] || { echo "build-portable: /usr/include/$lib is missing; run scripts/install-deps.sh" >&2; exit 2; }
  cp -rLu --preserve=timestamps "/usr/include/$lib" "$headers/"
done
# The root has no git: --version's commit and date are read here (cmake/build_info.cmake).
commit=$(git -C "$repo" rev-parse HEAD 2>/dev/null || true)
commit_date=$(TZ=UTC git -C "$repo" log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd 2>/dev/null || true)
export COMMIT=$commit COMMIT_DATE=$commit_date
# The licenses of everything linked in, for the tarball, the .deb and the wheel: the static
# libraries' from their source trees and the Debian 11 root's packages, the header-only ones from
# this machine's (they are compiled against its headers, above).
. "$repo/scripts/lib/notices.sh"
ssl_version=$(package_version "$root/var/lib/dpkg" libssl-dev)
zlib_version=$(package_version "$root/var/lib/dpkg" zlib1g-dev)
lzma_version=$(package_version "$root/var/lib/dpkg" liblzma-dev)
header_only_notices
"$repo/packaging/third-party-notices.sh" "$repo/build-portable/THIRD_PARTY_NOTICES.txt" \
  "libarchive $archive_version|$deps/COPYING.libarchive" \
  "curl $curl_version|$deps/COPYING.curl" \
  "mimalloc $mimalloc_version|$deps/COPYING.mimalloc" \
  "OpenSSL $ssl_version|$root/usr/share/doc/libssl-dev/copyright" \
  "zlib $zlib_version|$root/usr/share/doc/zlib1g-dev/copyright" \
  "xz-utils (liblzma) $lzma_version|$root/usr/share/doc/liblzma-dev/copyright" \
  "${header_only[@]}"
echo "== cudnnup, portable, in the Debian 11 root (deps: $(tr '\n' ' ' <"$deps/VERSION"))" >&2
in_root '
  cmake -S /src -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DCUDNNUP_BUILD_TESTS=OFF -DCUDNNUP_BUILD_BENCH=OFF -DCUDNNUP_PORTABLE_DEPS=/deps -DCMAKE_EXE_LINKER_FLAGS=-s \
    -DCUDNNUP_THIRD_PARTY_INCLUDE=/build/third_party_headers \
    -DCUDNNUP_THIRD_PARTY_NOTICES=/build/THIRD_PARTY_NOTICES.txt \
    -DCUDNNUP_COMMIT="$COMMIT" -DCUDNNUP_COMMIT_DATE="$COMMIT_DATE" >/build/configure.log
  ninja -C /build -j"$JOBS"
  # The .deb, made here so that dpkg-shlibdeps reads Debian 11 symbols files: its libc6 floor is
  # the portable binary'"'"'s.
  cd /build && rm -f ./*.deb && cpack -G DEB >/build/cpack.log
'
echo "== built $repo/build-portable/src/cudnnup and $(cd "$repo/build-portable" && ls ./*.deb)" >&2
if ((tests)); then
  echo "== the disk tests, in the Debian 11 root (build-portable-tests/)" >&2
  in_root '
    cmake -S /src -B /build-tests -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
      -DCUDNNUP_BUILD_TESTS=ON -DCUDNNUP_BUILD_BENCH=OFF -DCUDNNUP_PORTABLE_DEPS=/deps \
      -DCUDNNUP_THIRD_PARTY_INCLUDE=/build/third_party_headers \
      -DCUDNNUP_COMMIT="$COMMIT" -DCUDNNUP_COMMIT_DATE="$COMMIT_DATE" >/build-tests/configure.log
    ninja -C /build-tests -j"$JOBS" cudnnup_disk_tests
  '
fi
