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
  packages+=(g++-mingw-w64-x86-64-posix gcc-mingw-w64-x86-64-posix binutils-mingw-w64-x86-64 wine64 wine)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
