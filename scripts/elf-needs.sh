#!/usr/bin/env bash
# What a Linux binary needs from the system it runs on, for the portable build's proofs
# (scripts/check-packages.sh, packaging/wheel/*, tests/packaging/wheel_test.sh): one definition of
# "glibc floor" and "glibc's own libraries" for all of them.
#
#   scripts/elf-needs.sh floor BINARY...    the highest GLIBC_2.N symbol version any BINARY needs
#                                           (prints 2.N; exit 1 when none has one)
#   scripts/elf-needs.sh foreign BINARY...  the NEEDED libraries that are not glibc's own, one per
#                                           line as BINARY: LIBRARY (exit 0 when there are none, 1 else)
#
# glibc's own libraries are those manylinux allows on every glibc system (PEP 600): libc, libm,
# libdl, libpthread, librt, libresolv, libutil, libnsl and the dynamic loader.
# Needs binutils (objdump, readelf).
set -euo pipefail

usage() { echo "usage: scripts/elf-needs.sh floor|foreign BINARY..." >&2; exit 2; }
(($# >= 2)) || usage
mode=$1; shift
for b in "$@"; do
  [[ -f $b ]] || { echo "elf-needs: '$b' is not a file" >&2; exit 2; }
  readelf -h "$b" >/dev/null 2>&1 || { echo "elf-needs: '$b' is not an ELF file" >&2; exit 2; }
done

case $mode in
  floor)
    floor=$(objdump -T "$@" | grep -o 'GLIBC_2\.[0-9]*' | sed 's/GLIBC_//' | sort -uV | tail -1 || true)
    [[ -n $floor ]] || { echo "elf-needs: no GLIBC_2.N symbol version in $* (not a dynamic glibc binary?)" >&2; exit 1; }
    echo "$floor"
    ;;
  foreign)
    found=0
    for b in "$@"; do
      while read -r lib; do
        [[ $lib =~ ^(libc|libm|libdl|libpthread|librt|libresolv|libutil|libnsl)\.so\.[0-9]+$|^ld-linux-x86-64\.so\.2$|^ld-linux-aarch64\.so\.1$ ]] && continue
        echo "$b: $lib"; found=1
      done < <(readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    done
    exit $found
    ;;
  *) usage ;;
esac
