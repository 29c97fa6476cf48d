# The pieces of a build's THIRD_PARTY_NOTICES.txt (packaging/third-party-notices.sh) that more than
# one build needs; sourced by scripts/build-portable.sh and scripts/package.sh (set -e callers).

# package_version ADMINDIR PACKAGE: the installed version from that dpkg database (a root's, or
# /var/lib/dpkg for this machine); a package without one stops the caller, rather than leave a
# notice titled without its version.
package_version() {
  local v
  v=$(dpkg-query --admindir="$1" -W -f='${Version}' "$2" 2>/dev/null) && [[ -n $v ]] ||
    { echo "notices: $2 has no version in $1 (is the package installed?)" >&2; exit 2; }
  echo "$v"
}

# header_only_notices: sets the array header_only to the TITLE|FILE entries of the header-only
# libraries every build compiles in, from this machine's packages.
header_only_notices() {
  local cli11 json fmt
  cli11=$(package_version /var/lib/dpkg libcli11-dev)
  json=$(package_version /var/lib/dpkg nlohmann-json3-dev)
  fmt=$(package_version /var/lib/dpkg libfmt-dev)
  header_only=("CLI11 $cli11|/usr/share/doc/libcli11-dev/copyright"
               "JSON for Modern C++ $json|/usr/share/doc/nlohmann-json3-dev/copyright"
               "fmt $fmt|/usr/share/doc/libfmt-dev/copyright")
}
