#!/usr/bin/env bash
# Writes the notices file that ships beside a cudnnup binary: the copyright and license text of
# every library compiled into it, taken from the copyright files of the Debian packages (or the
# source trees) the build used, so the text is the one of the code that was really linked.
#
#   packaging/third-party-notices.sh OUT 'TITLE|FILE' ['TITLE|FILE'...]
#
#   OUT     the file to write (replaced whole, through a temporary file beside it)
#   TITLE   what the section is about, e.g. "OpenSSL 1.1.1w (Debian 11 libssl-dev)"
#   FILE    its license text; a missing or empty FILE is an error, never a silent gap
#
# Used by scripts/build-portable.sh (the tarball, the .deb and the wheel) and
# packaging/windows/build-zip.sh; scripts/check-packages.sh checks every artifact has it.
set -euo pipefail

if (($# < 2)); then
  echo "usage: packaging/third-party-notices.sh OUT 'TITLE|FILE' ['TITLE|FILE'...]" >&2
  exit 2
fi
out=$1
shift
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
{
  echo "cudnnup is licensed under the Apache License 2.0 (LICENSE). This build also contains the"
  echo "following libraries, each under its own license, reproduced below from the copyright files"
  echo "of the packages it was built from. The GCC runtime (libstdc++, libgcc) is used under the"
  echo "GCC Runtime Library Exception, which asks for no notice."
  for entry in "$@"; do
    title=${entry%%|*}
    file=${entry#*|}
    if [[ $title == "$entry" || -z $title || ! -s $file ]]; then
      echo "third-party-notices: '$entry' is not TITLE|FILE with a non-empty FILE" >&2
      exit 2
    fi
    printf '\n\n==== %s ====\n(from %s)\n\n' "$title" "$(basename "$(dirname "$file")")/$(basename "$file")"
    cat "$file"
  done
} >"$tmp"
chmod 644 "$tmp"
mv -f "$tmp" "$out"
trap - EXIT
