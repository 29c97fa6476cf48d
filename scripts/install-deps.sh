#!/usr/bin/env bash
# Installs everything cudnnup needs to build and test on Debian 12, from Debian's own packages.
# Usage: scripts/install-deps.sh [--windows]   (--windows adds the mingw-w64 cross compiler and Wine)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libcli11-dev libfmt-dev nlohmann-json3-dev
  libarchive-dev libcurl4-openssl-dev libssl-dev
  googletest libgtest-dev libgmock-dev
  python3 zsh fish zip xz-utils
)
if [[ "${1:-}" == "--windows" ]]; then
  # libz-mingw-w64-dev + dpkg-dev: scripts/build-windows-deps.sh builds Debian's libarchive
  # source package for mingw-w64 (Debian ships no mingw libarchive); dpkg-dev unpacks it.
  packages+=(g++-mingw-w64-x86-64-posix gcc-mingw-w64-x86-64-posix binutils-mingw-w64-x86-64 wine64 wine
             libz-mingw-w64-dev dpkg-dev)
fi

# The Windows build compiles libarchive from Debian's source package: `apt-get source` needs the
# deb-src lines of the same Debian archive (same mirrors, suites and keyring as debian.sources).
need_update=0
if [[ "${1:-}" == "--windows" && ! -f /etc/apt/sources.list.d/cudnnup-deb-src.sources ]] &&
   ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" tee /etc/apt/sources.list.d/cudnnup-deb-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
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
