#!/usr/bin/env bash
# Makes (once) and prints the path of a Debian 11 (bullseye) root, for building and proving the
# portable Linux binary (docs/packaging.md). Two roots, both cached outside the clone:
#   minbase      `debootstrap --variant=minbase bullseye`, never changed: the clean system the
#                portable binary, the .deb and the wheel are tried in (copied per try).
#   build        minbase plus Debian 11's compiler and the -dev packages the static build uses.
# The apt sources of both are derived from this machine's own (same mirrors, keyrings and
# components, its codename replaced by bullseye), so no archive host is named here.
#
# Usage: scripts/debian11-root.sh minbase|build     prints the root's path on stdout
# Cache: ${CUDNNUP_CACHE:-$HOME/.cache/cudnnup}/debian11/: minbase keyed by debootstrap's version,
#        build by that and the package list below (change either and a new root is made, and the
#        stale one removed). Needs root and debootstrap
#        (scripts/install-deps.sh --package).
set -euo pipefail

kind=${1:-}
[[ $kind == minbase || $kind == build ]] || { echo "usage: $0 minbase|build" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "debian11-root: debootstrap and chroot need root" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "debian11-root: debootstrap is missing; run scripts/install-deps.sh --package" >&2; exit 2; }

# What the build root adds to minbase: Debian 11's GCC 10 and CMake, and the static archives
# of OpenSSL, zlib and xz that Debian 11 ships (built against its glibc 2.31). libarchive and
# libcurl are built from Debian source packages (scripts/build-portable.sh).
# The loader differential test also runs there (scripts/debian11-differential.sh): googletest,
# patchelf (it patches stub libraries per scenario) and python3 (tests/CMakeLists.txt).
build_packages=(build-essential cmake ninja-build pkg-config ccache dpkg-dev ca-certificates
                libssl-dev zlib1g-dev liblzma-dev file
                googletest libgtest-dev libgmock-dev patchelf python3)

cache=${CUDNNUP_CACHE:-$HOME/.cache/cudnnup}/debian11
bootstrap_version=$(dpkg-query -W -f='${Version}' debootstrap)
minbase=$cache/minbase-$(printf '%s\n' "$bootstrap_version" | sha256sum | cut -c1-12)
build=$cache/build-$(printf '%s\n' "$bootstrap_version" "${build_packages[@]}" | sha256sum | cut -c1-12)
mkdir -p "$cache"

host_codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[[ -n $host_codename ]] || { echo "debian11-root: /etc/os-release names no VERSION_CODENAME to derive sources from" >&2; exit 2; }

# The machine's enabled deb entries, as (URI, suite, components, keyring) lines with its codename
# replaced: "deb URI bookworm-security main" becomes bullseye-security. deb822 and one-line forms.
derived_sources() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] || continue
    awk -v from="$host_codename" 'BEGIN { RS = ""; }
      /(^|\n)Enabled: *no/ { next }
      /(^|\n)Types:([^\n]* )?deb( |\n|$)/ {
        uris = ""; suites = ""; comps = ""; key = ""
        n = split($0, l, "\n")
        for (i = 1; i <= n; i++) {
          if (l[i] ~ /^URIs:/) uris = substr(l[i], 6)
          if (l[i] ~ /^Suites:/) suites = substr(l[i], 8)
          if (l[i] ~ /^Components:/) comps = substr(l[i], 12)
          if (l[i] ~ /^Signed-By:/) key = substr(l[i], 11)
        }
        nu = split(uris, u, " "); ns = split(suites, s, " ")
        for (a = 1; a <= nu; a++) for (b = 1; b <= ns; b++)
          if (index(s[b], from) == 1) { sub(from, "bullseye", s[b]); print u[a], s[b], key, comps }
      }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] || continue
    awk -v from="$host_codename" '$1 == "deb" {
        key = ""; i = 2
        if ($2 ~ /^\[/) { while ($i !~ /\]$/) { if ($i ~ /signed-by=/) key = $i; i++ }; if ($i ~ /signed-by=/) key = $i; i++ }
        sub(/.*signed-by=/, "", key); sub(/\]$/, "", key)
        if (index($(i + 1), from) != 1) next
        suite = $(i + 1); sub(from, "bullseye", suite); comps = ""
        for (j = i + 2; j <= NF; j++) comps = comps " " $j
        print $i, suite, key, comps
      }' "$f"
  done
}

make_minbase() {
  local lines first_uri tmp
  lines=$(derived_sources | sort -u)
  [[ -n $lines ]] || { echo "debian11-root: no enabled deb entry for '$host_codename' in this machine's apt sources to derive bullseye's from" >&2; exit 2; }
  first_uri=$(awk '$2 == "bullseye" { print $1; exit }' <<<"$lines")
  [[ -n $first_uri ]] || { echo "debian11-root: the apt sources name no main suite '$host_codename' to derive bullseye's mirror from" >&2; exit 2; }
  tmp=$minbase.partial
  rm -rf "$tmp"
  echo "== debootstrap --variant=minbase bullseye from $first_uri into $minbase" >&2
  debootstrap --variant=minbase bullseye "$tmp" "$first_uri" >"$cache/debootstrap.log" 2>&1 || {
    tail -20 "$cache/debootstrap.log" >&2
    echo "debian11-root: debootstrap failed (full log: $cache/debootstrap.log)" >&2
    exit 2
  }
  # The same derived entries as deb and deb-src, so `apt-get source` gets Debian 11's sources
  # with its security updates. Keyrings named by the host are copied in.
  : >"$tmp/etc/apt/sources.list"
  while read -r uri suite key comps; do
    opt=""
    if [[ -n $key && -f $key ]]; then
      mkdir -p "$tmp/etc/apt/keyrings"; cp "$key" "$tmp/etc/apt/keyrings/"
      opt="[signed-by=/etc/apt/keyrings/$(basename "$key")] "
    fi
    # A suite the mirror does not have for bullseye (say, a backports the host enables) is left out.
    curl -fsI "$uri/dists/$suite/Release" >/dev/null 2>&1 || curl -fsI "$uri/dists/$suite/InRelease" >/dev/null 2>&1 || continue
    printf 'deb %s%s %s %s\ndeb-src %s%s %s %s\n' "$opt" "$uri" "$suite" "$comps" "$opt" "$uri" "$suite" "$comps" >>"$tmp/etc/apt/sources.list"
  done <<<"$lines"
  mv "$tmp" "$minbase"
}

in_root() {  # in_root ROOT COMMAND...: runs COMMAND in ROOT with /proc (for tools that read it)
  local r=$1; shift
  unshare --mount --fork sh -c 'mount -t proc proc "$0/proc" 2>/dev/null || true; exec chroot "$0" "$@"' "$r" "$@"
}

make_build() {
  local tmp=$build.partial
  rm -rf "$tmp"
  cp -a "$minbase" "$tmp"
  echo "== installing Debian 11's build packages into $build" >&2
  { in_root "$tmp" apt-get update -q &&
    in_root "$tmp" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${build_packages[@]}"; } \
    >"$cache/build-root.log" 2>&1 || {
    tail -20 "$cache/build-root.log" >&2
    echo "debian11-root: installing the build packages failed (full log: $cache/build-root.log)" >&2
    exit 2
  }
  in_root "$tmp" apt-get clean
  mv "$tmp" "$build"
}

# Roots of other keys are stale (another debootstrap or package list): removed, so the cache
# does not grow with every change.
remove_stale() {
  local d
  for d in "$cache"/minbase-* "$cache"/build-*; do
    [[ -d $d && $d != "$minbase" && $d != "$build" ]] && rm -rf "$d"
  done
  return 0
}
[[ -d $minbase ]] || { make_minbase; remove_stale; }
if [[ $kind == build && ! -d $build ]]; then make_build; remove_stale; fi
if [[ $kind == minbase ]]; then echo "$minbase"; else echo "$build"; fi
