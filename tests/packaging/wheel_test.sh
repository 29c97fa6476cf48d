#!/usr/bin/env bash
# The proof of a cudnnup wheel (packaging/wheel/build-wheel.sh): installs it offline into a fresh
# venv and checks what a user gets, and that its platform tag does not lie.
#
#   tests/packaging/wheel_test.sh WHEEL
#
# Prints one "ok: ..." or "FAIL: ..." line per check and exits 0 only when every check passed
# (1 when one failed, 2 for a bad argument or a missing tool). Needs Debian's python3-venv and
# binutils; no network.
set -euo pipefail

python=/usr/bin/python3  # Debian's, with venv and ensurepip (python3 on PATH may be a pyenv shim)

if (($# != 1)) || [[ $1 == -* ]]; then
  echo "usage: tests/packaging/wheel_test.sh WHEEL   (a .whl from packaging/wheel/build-wheel.sh)" >&2
  exit 2
fi
wheel=$1
if [[ ! -f $wheel || $wheel != *.whl ]]; then
  echo "wheel_test: '$wheel' is not a .whl file; build one with packaging/wheel/build-wheel.sh" >&2
  exit 2
fi
for tool in objdump readelf; do
  command -v "$tool" >/dev/null || { echo "wheel_test: $tool is missing; apt-get install binutils" >&2; exit 2; }
done
wheel=$(cd "$(dirname "$wheel")" && pwd)/$(basename "$wheel")

failed=0
ok() { echo "ok: $*"; }
fail() {
  echo "FAIL: $*"
  failed=$((failed + 1))
}

work=$(mktemp -d -t cudnnup-wheel-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
venv=$work/venv

# --- The tag: the file name's and the WHEEL file's must agree, and be manylinux_2_N_x86_64.
# Wheel file names are NAME-VERSION(-BUILD)?-PYTHON-ABI-PLATFORM.whl (PEP 427).
base=$(basename "$wheel" .whl)
IFS=- read -r -a parts <<<"$base"
file_tag=${parts[-3]}-${parts[-2]}-${parts[-1]}
wheel_version=${parts[1]}
platform=${parts[-1]}
if [[ $platform =~ ^manylinux_2_([0-9]+)_x86_64$ ]]; then
  floor_minor=${BASH_REMATCH[1]}
  ok "file name's platform tag is $platform (glibc 2.$floor_minor or newer, x86-64)"
else
  floor_minor=''
  fail "file name's platform tag '$platform' is not manylinux_2_N_x86_64"
fi
# What pip reads is the WHEEL file inside: its Tag lines and Root-Is-Purelib.
wheel_meta=$("$python" - "$wheel" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
name = next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL") and n.count("/") == 1)
print(z.read(name).decode())
PY
)
inner_tags=$(sed -n 's/^Tag: *//p' <<<"$wheel_meta" | tr -d '\r' | sort | paste -sd' ')
if [[ $inner_tags == "$file_tag" ]]; then
  ok "WHEEL file's Tag ($inner_tags) agrees with the file name"
else
  fail "WHEEL file's Tag '$inner_tags' differs from the file name's '$file_tag'"
fi
if grep -qx 'Root-Is-Purelib: false' <<<"$(tr -d '\r' <<<"$wheel_meta")"; then
  ok "WHEEL says Root-Is-Purelib: false (it holds native code)"
else
  fail "WHEEL does not say Root-Is-Purelib: false, but the wheel holds native binaries"
fi

# --- Install it offline into a fresh venv. --no-index: nothing may come from the network.
start=$SECONDS
"$python" -m venv "$venv"
if "$venv/bin/pip" install --no-index --disable-pip-version-check -q "$wheel" >"$work/pip.log" 2>&1; then
  ok "pip install --no-index $(basename "$wheel") into a fresh venv ($((SECONDS - start)) s)"
else
  fail "pip install --no-index failed: $(tail -3 "$work/pip.log" | tr '\n' ' ')"
  echo "wheel_test: $failed failed (stopped: nothing installed to check)"
  exit 1
fi
main=$venv/bin/cudnnup
child=$venv/bin/cudnnup-child

# --- Both executables on the venv's PATH, with their exec bits (pip keeps the zip entry's mode).
for exe in "$main" "$child"; do
  if [[ -f $exe && -x $exe ]]; then
    ok "$(basename "$exe") installed in VENV/bin, mode $(stat -c %a "$exe")"
  else
    fail "$(basename "$exe") is not an executable file in VENV/bin"
  fi
done
# cudnnup starts the lean child only when it is as trustworthy as itself (child_program in
# src/app/child/child_runner.cc): a regular file, not a link, the same owner, writable by neither
# group nor others, in a folder writable by neither. Else it falls back to its own slower __child
# command. pip gives files 777 & ~umask (plus x), so under a umask of 002 the fallback applies.
group_or_others_write() { (($(stat -c '8#%a' "$1") & 8#022)); }
if [[ -f $child && ! -L $child && $(stat -c %u "$child") == "$(stat -c %u "$main")" ]] &&
  ! group_or_others_write "$child" && ! group_or_others_write "$venv/bin"; then
  ok "cudnnup-child meets the lean child rule (regular, same owner, no group/other write, nor on VENV/bin; umask $(umask))"
else
  fail "cudnnup-child does not meet the lean child rule (umask $(umask)): cudnnup would fall back to its __child command"
fi

# --- The installed cudnnup runs, and says the wheel's version.
if version_out=$("$main" --version 2>"$work/version.err"); then
  ok "VENV/bin/cudnnup --version: $(head -1 <<<"$version_out")"
  printed=$(head -1 <<<"$version_out" | awk '{print $2}')
  if [[ $printed == "$wheel_version" ]]; then
    ok "the binary's version $printed is the wheel's"
  else
    fail "the binary says version '$printed', the wheel '$wheel_version'"
  fi
else
  fail "VENV/bin/cudnnup --version exited $?: $(head -3 "$work/version.err")"
fi

# doctor exits 0 (no errors) or 1 (it found errors, e.g. no driver here): docs/exit-codes.md. 2 is
# a usage error or cudnnup's own failure, anything higher a crash.
start=$SECONDS
set +e
"$main" doctor --json >"$work/doctor.json" 2>"$work/doctor.err"
rc=$?
set -e
if ((rc == 0 || rc == 1)); then
  ok "VENV/bin/cudnnup doctor --json exited $rc ($((SECONDS - start)) s)"
else
  fail "VENV/bin/cudnnup doctor --json exited $rc: $(head -3 "$work/doctor.err")"
fi
if schema=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["schema"])' "$work/doctor.json" 2>/dev/null); then
  ok "doctor's stdout is one JSON document (schema $schema)"
else
  fail "doctor's stdout is not a JSON document: $(head -c 200 "$work/doctor.json")"
fi

# python -m cudnnup finds the same binary through sysconfig's scripts path.
if m_out=$("$venv/bin/python" -m cudnnup --version 2>&1) && [[ $m_out == "$version_out" ]]; then
  ok "python -m cudnnup --version runs the installed binary"
else
  fail "python -m cudnnup --version: $m_out"
fi

# --- The tag is honest: no binary needs a newer glibc than the tag's floor, and they need no
# shared library but glibc's own (the manylinux rule; the portable build links the rest in).
elf_needs=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/elf-needs.sh
for exe in "$main" "$child"; do
  name=$(basename "$exe")
  need=$("$elf_needs" floor "$exe" 2>/dev/null | sed 's/^2\.//' || true)
  if [[ -z $floor_minor ]]; then
    fail "$name: no glibc floor to compare with (the tag is not manylinux_2_N)"
  elif [[ -z $need ]]; then
    fail "$name: objdump -T lists no GLIBC_2.x symbol versions (not a dynamic glibc binary?)"
  elif ((need <= floor_minor)); then
    ok "$name needs at most GLIBC_2.$need, within the tag's 2.$floor_minor"
  else
    fail "$name needs GLIBC_2.$need, newer than the tag's floor 2.$floor_minor: the tag lies (build it on glibc 2.$floor_minor, e.g. the Debian 11 root)"
  fi
  # glibc's libraries (manylinux allows these on every glibc system); anything else must be
  # linked in statically or shipped (auditwheel's job), which this wheel does not do.
  if others=$("$elf_needs" foreign "$exe" | sed 's/^[^:]*: //' | paste -sd' '); then
    ok "$name needs only glibc's shared libraries"
  else
    fail "$name needs shared libraries that a manylinux system need not have: $others"
  fi
done

# --- pip uninstall takes both executables away, and the package.
if "$venv/bin/pip" uninstall -y -q cudnnup >"$work/uninstall.log" 2>&1; then
  left=()
  for path in "$main" "$child"; do [[ -e $path ]] && left+=("$(basename "$path")"); done
  if "$venv/bin/python" -c 'import cudnnup' 2>/dev/null; then left+=("the cudnnup package"); fi
  if ((${#left[@]} == 0)); then
    ok "pip uninstall -y cudnnup removed cudnnup, cudnnup-child and the package"
  else
    fail "pip uninstall -y cudnnup left: ${left[*]}"
  fi
else
  fail "pip uninstall -y cudnnup failed: $(tail -3 "$work/uninstall.log" | tr '\n' ' ')"
fi

if ((failed)); then
  echo "wheel_test: $failed check(s) failed"
  exit 1
fi
echo "wheel_test: all checks passed"
