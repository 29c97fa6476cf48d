#!/usr/bin/env bash
# Installs everything cudnnup needs to build and test on Debian 12, from Debian's own packages.
# Usage: scripts/install-deps.sh [--windows] [--package]
#   --windows  adds the mingw-w64 cross compiler and Wine
#   --package  adds what scripts/package.sh and scripts/check-packages.sh need: debootstrap (the
#              Debian 11 root), Python's build and hatchling (the wheel), binutils (readelf)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache
  libcli11-dev libfmt-dev nlohmann-json3-dev
  libarchive-dev libcurl4-openssl-dev libssl-dev
  googletest libgtest-dev libgmock-dev
  python3 python3-jsonschema zsh fish zip xz-utils bsdutils
  chromium python3-pil fonts-dejavu-core  # tests/html: doctor --format html in headless Chromium, screenshot checked
  prometheus   # promtool: tests/cli/doctor_collector_formats_posix_test.cc checks doctor --format prometheus
  patchelf   # tests/disk/loader_differential_test.cc patches stub libraries per scenario
  universal-ctags   # tests/style/function_length_test.py: function extents
  clang-14 libclang-rt-14-dev  # the libFuzzer targets (fuzz/, scripts/fuzz.sh): clang, libFuzzer, ASan, UBSan
)
windows=0 package=0
for arg in "$@"; do
  case $arg in
    --windows) windows=1 ;;
    --package) package=1 ;;
    *) echo "usage: scripts/install-deps.sh [--windows] [--package]" >&2; exit 2 ;;
  esac
done
if ((package)); then
  # scripts/build-portable.sh also builds libarchive and curl from their source packages (deb-src,
  # below) and runs in a Debian 11 root that debootstrap makes; the wheel is built offline with
  # Debian's python3-build and hatchling; its proof makes a venv.
  packages+=(debootstrap python3-build python3-hatchling python3-venv python3-pip binutils openssl unzip dpkg-dev)
fi
if ((windows)); then
  # libz-mingw-w64-dev + dpkg-dev: scripts/build-windows-deps.sh builds Debian's libarchive
  # source package for mingw-w64 (Debian ships no mingw libarchive); dpkg-dev unpacks it.
  packages+=(g++-mingw-w64-x86-64-posix gcc-mingw-w64-x86-64-posix binutils-mingw-w64-x86-64 wine64 wine
             libz-mingw-w64-dev dpkg-dev)
fi

# The Windows build compiles libarchive from Debian's source package: `apt-get source` needs deb-src
# entries. They are derived from this machine's own `deb` entries (same mirrors, suites,
# components and keyrings, whatever mirror or proxy it is configured for): deb822 stanzas of
# /etc/apt/sources.list.d/*.sources and one-line entries of sources.list(.d/*.list).
deb_src_file=/etc/apt/sources.list.d/cudnnup-deb-src.sources
derive_deb_src() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f && $f != "$deb_src_file" ]] || continue
    # One stanza per paragraph: keep enabled stanzas whose Types include "deb", as deb-src.
    awk 'BEGIN { RS = ""; ORS = "\n\n" }
         /(^|\n)Enabled: *no/ { next }
         /(^|\n)Types:([^\n]* )?deb( |\n|$)/ {
           n = split($0, lines, "\n"); out = ""
           for (i = 1; i <= n; i++) {
             if (lines[i] ~ /^#/) continue
             if (lines[i] ~ /^Types:/) lines[i] = "Types: deb-src"
             out = out lines[i] "\n"
           }
           printf "%s", out; printf "\n"
         }' "$f"
  done
  # One-line format: "deb [options] URI SUITE COMPONENTS..." becomes a deb822 stanza.
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] || continue
    awk '$1 == "deb" {
           opts = ""; i = 2
           if ($2 ~ /^\[/) { while ($i !~ /\]$/) { opts = opts " " $i; i++ }; opts = opts " " $i; i++ }
           gsub(/[\[\]]/, "", opts)
           printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:", $i, $(i + 1)
           for (j = i + 2; j <= NF; j++) printf " %s", $j
           printf "\n"
           k = split(opts, o, " ")
           for (j = 1; j <= k; j++) if (o[j] ~ /^signed-by=/) printf "Signed-By: %s\n", substr(o[j], 11)
           printf "\n"
         }' "$f"
  done
}
need_update=0
if ((windows || package)) && [[ ! -f $deb_src_file ]] &&
   ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  stanzas=$(derive_deb_src)
  if [[ -z $stanzas ]]; then
    echo "install-deps: no enabled 'deb' entry in /etc/apt/sources.list or sources.list.d to derive deb-src from" >&2
    exit 2
  fi
  printf '%s\n' "$stanzas" | "${sudo_cmd[@]}" tee "$deb_src_file" >/dev/null
  need_update=1
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})) || ((need_update)); then
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
fi
if ((${#missing[@]})); then
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
