#!/usr/bin/env bash
# Proves the artifacts scripts/package.sh put in dist/ (docs/packaging.md), on systems they were
# not built on:
#   1. the portable binaries need no GLIBC symbol version above 2.31 and no shared library but
#      glibc's own; every artifact carries THIRD_PARTY_NOTICES.txt with the license of each
#      library linked into its binary;
#   2. the tarball's cudnnup runs `doctor --json` in a clean Debian 11 root (debootstrap
#      --variant=minbase: glibc 2.31, nothing else installed), and its output is a doctor report;
#      with a stub cuDNN in that root's library folder, its probe child reports the stub's version;
#   3. the .deb installs with dpkg -i in another clean Debian 11 root (its Depends resolve there),
#      puts cudnnup, cudnnup-child and the completions in place, runs, and dpkg -r removes it;
#   4. the wheel installs offline into a fresh venv and runs (tests/packaging/wheel_test.sh);
#   5. the Windows zip's cudnnup.exe runs under Wine with no mingw folder on its PATH
#      (tests/packaging/windows_zip_test.sh);
#   6. the portable binary downloads over HTTPS from a loopback server with its own CA, directly
#      and through a loopback proxy (tests/packaging/https_download_test.py);
#   7. on this machine, the tarball's cudnnup prints the same doctor report as the development
#      build (build/src/cudnnup), timings aside (tests/packaging/compare_doctor_json.py): as it
#      is, and with a stub cuDNN 9.14 first on LD_LIBRARY_PATH; and the same `explain --no-doctor
#      --json` output on every real log of tests/data/explain.
# Each prints ok:/FAIL: lines; the exit code is 0 only when all passed.
#
# Usage: scripts/check-packages.sh [--no-windows]     (after scripts/package.sh; needs root)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
windows=1
case ${1:-} in
  "") ;;
  --no-windows) windows=0 ;;
  *) echo "usage: scripts/check-packages.sh [--no-windows]" >&2; exit 2 ;;
esac
cd "$repo"
. scripts/lib/run-in-root.sh
max_floor=2.31
bin=build-portable/src
version=$("$bin/cudnnup" --version | awk 'NR == 1 { print $2 }')
tarball=dist/cudnnup-$version-linux-x86_64.tar.gz
deb=dist/cudnnup_${version}_amd64.deb
for f in "$tarball" "$deb"; do
  [[ -f $f ]] || { echo "check-packages: $f is missing; run scripts/package.sh first" >&2; exit 2; }
done

failed=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failed=1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# --- 1. What the binaries need from the system.
floor=$(scripts/elf-needs.sh floor "$bin/cudnnup" "$bin/cudnnup-child")
if [[ $(printf '%s\n%s\n' "$floor" "$max_floor" | sort -V | tail -1) == "$max_floor" ]]; then
  ok "the portable binaries need at most GLIBC_$floor (floor $max_floor)"
else
  fail "the portable binaries need GLIBC_$floor, above the floor $max_floor"
fi
if foreign=$(scripts/elf-needs.sh foreign "$bin/cudnnup" "$bin/cudnnup-child"); then
  ok "their NEEDED lists hold only glibc's libraries: $(readelf -d "$bin/cudnnup" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd' ')"
else
  fail "they need shared libraries beyond glibc: $(echo "$foreign" | paste -sd' ')"
fi

# mimalloc, not glibc, allocates for the parent (the start-up target, docs/benchmarks.md); the child
# keeps glibc's malloc: it loads NVIDIA's libraries and should meet them as any program does.
# Output captured first: under pipefail, `producer | grep -q` fails when grep's early exit kills the
# producer with SIGPIPE.
mimalloc_says=$(MIMALLOC_VERBOSE=1 "$bin/cudnnup" --version 2>&1 >/dev/null || true)
if grep -q '^mimalloc: ' <<<"$mimalloc_says"; then
  ok "cudnnup allocates through mimalloc (MIMALLOC_VERBOSE=1 is answered)"
else
  fail "cudnnup does not allocate through mimalloc (MIMALLOC_VERBOSE=1 printed nothing)"
fi
# Every thread's heap committed at once, so a thread's heap gets huge pages too (the option's
# number is set by src/portable/mimalloc_options.cc; a renumbered mimalloc fails here).
if grep -Eq "^mimalloc: option 'eager_commit_delay': 0( |$)" <<<"$mimalloc_says"; then
  ok "mimalloc commits every thread's first segment eagerly (eager_commit_delay 0)"
else
  fail "mimalloc's eager_commit_delay is not 0 (src/portable/mimalloc_options.cc not linked, or the option's number changed)"
fi
# Its large-OS-pages default (src/portable/mimalloc_options.cc): on only where the kernel has no
# reserved huge-page pool (then mimalloc falls back to transparent huge pages).
if [[ $(cat /proc/sys/vm/nr_hugepages 2>/dev/null) == 0 && $(cat /proc/sys/vm/nr_overcommit_hugepages 2>/dev/null) == 0 ]]; then
  if grep -q "^mimalloc: option 'large_os_pages': 1" <<<"$mimalloc_says"; then
    ok "mimalloc asks for large OS pages by default (no huge-page pool here: transparent huge pages)"
  else
    fail "mimalloc's large_os_pages default is not on (src/portable/mimalloc_options.cc not linked, or the option's number changed)"
  fi
  # The option reading as on is not enough: it must be on before mimalloc makes its first segment
  # (an allocation before the default was set left the whole heap on 4 KiB pages while the option
  # read as on). So the default's page faults must be those of MIMALLOC_LARGE_OS_PAGES=1, not of
  # =0, on a run that fills a heap (explain of a 1 MB log). Where huge pages change nothing
  # (THP off or always on) the check says so and checks nothing.
  if ! grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
    big_log=$(mktemp)
    while (($(stat -c %s "$big_log") < 1048576)); do cat tests/data/explain/*.log >>"$big_log"; done
    # The minor page faults of one run of cudnnup explain on the big log; nothing when the run
    # fails (a run that stops early faults little and would prove nothing).
    minor_faults() {
      env "$@" python3 -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
if rc == 0: print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt)' "$bin/cudnnup" explain --no-doctor --json --file "$big_log"
    }
    faults_default=$(minor_faults) || true
    faults_on=$(minor_faults MIMALLOC_LARGE_OS_PAGES=1) || true
    faults_off=$(minor_faults MIMALLOC_LARGE_OS_PAGES=0) || true
    rm -f "$big_log"
    if [[ -z $faults_default || -z $faults_on || -z $faults_off ]]; then
      fail "cudnnup explain of a 1 MB log failed, so the huge-page default could not be checked"
    elif ((faults_off <= faults_on + faults_on / 4 + 50)); then
      # Huge pages change nothing here (THP always on, or none to be had): nothing to tell apart.
      echo "note: huge pages make no difference to page faults here ($faults_on with, $faults_off without); the default's effect is not checked"
    elif ((faults_default <= faults_on + faults_on / 4 + 50)); then
      ok "the heap gets huge pages by default: $faults_default page faults (large pages forced on: $faults_on, off: $faults_off)"
    else
      fail "the large-pages default does not reach the heap: $faults_default page faults by default, $faults_on with MIMALLOC_LARGE_OS_PAGES=1, $faults_off with =0 (something allocated before src/portable/mimalloc_options.cc set it?)"
    fi
  fi
else
  if grep -q "^mimalloc: option 'large_os_pages': 0" <<<"$mimalloc_says"; then
    ok "mimalloc leaves large OS pages off on a machine with a reserved huge-page pool"
  else
    fail "mimalloc's large_os_pages is on although this machine reserves huge pages (MAP_HUGETLB could SIGBUS in a container)"
  fi
fi
if grep -qw 'T malloc' <<<"$(nm -D "$bin/cudnnup")"; then
  ok "cudnnup exports its malloc, so glibc's own allocations use it too"
else
  fail "cudnnup does not export malloc: glibc would allocate with its own malloc and cudnnup's free could meet it"
fi

# The licenses of the statically linked libraries, in each artifact (packaging/third-party-notices.sh).
check_notices() {
  local what=$1 text=$2; shift 2
  local missing=()
  for component in "$@"; do grep -q "^==== $component " <<<"$text" || missing+=("$component"); done
  if ((${#missing[@]} == 0)); then
    ok "$what: THIRD_PARTY_NOTICES.txt has the license of $(printf '%s, ' "$@" | sed 's/, $//')"
  else
    fail "$what: THIRD_PARTY_NOTICES.txt lacks ${missing[*]} ($(wc -c <<<"$text") bytes)"
  fi
}
portable_parts=(libarchive curl mimalloc OpenSSL zlib xz-utils CLI11 "JSON for Modern C++" fmt)
check_notices tarball "$(tar -xzOf "$tarball" "cudnnup-$version-linux-x86_64/THIRD_PARTY_NOTICES.txt" 2>&1)" "${portable_parts[@]}"
check_notices deb "$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/cudnnup/THIRD_PARTY_NOTICES.txt 2>&1)" "${portable_parts[@]}"
wheel_file=$(ls dist/cudnnup-"$version"-py3-none-manylinux_*_x86_64.whl 2>/dev/null | head -1 || true)
if [[ -n $wheel_file ]]; then
  notices_entry=$(unzip -Z1 "$wheel_file" | grep '\.dist-info/.*THIRD_PARTY_NOTICES\.txt$' || true)
  check_notices wheel "$( [[ -n $notices_entry ]] && unzip -p "$wheel_file" "$notices_entry")" "${portable_parts[@]}"
else
  fail "no wheel for $version in dist/"
fi
if ((windows)); then
  check_notices "Windows zip" "$(unzip -p "dist/cudnnup-$version-windows-x86_64.zip" "cudnnup-$version-windows-x86_64/THIRD_PARTY_NOTICES.txt" 2>&1)" \
    libarchive zlib mingw-w64 CLI11 "JSON for Modern C++" fmt
fi

# A fresh copy of the clean Debian 11 root per check: nothing one leaves behind helps another.
minbase=$(scripts/debian11-root.sh minbase)
fresh_root() { rm -rf "$work/root"; cp -a "$minbase" "$work/root"; echo "$work/root"; }
glibc_of() { run_in_root "$1" -- 'ldd --version | sed -n 1p | grep -o "[0-9.]*$"' 2>/dev/null || echo "?"; }

# doctor's JSON, read on the host (the clean root has no Python): its schema and that it listed
# the machine; 0 and 1 are doctor's exit codes for "no error" and "errors found" (docs/exit-codes.md).
check_doctor_json() {
  local what=$1 json=$2 rc=$3
  if [[ $rc -gt 1 ]]; then fail "$what: doctor --json exited $rc: $(head -c 400 "$json")"; return; fi
  if /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["schema"].startswith("cudnnup.doctor/"), r["schema"]; assert "findings" in r' "$json" 2>"$work/json.err"; then
    ok "$what: doctor --json printed a doctor report (exit $rc)"
  else
    fail "$what: doctor --json did not print a doctor report: $(head -c 300 "$work/json.err")"
  fi
}

# --- 2. The tarball in a clean Debian 11 root.
root=$(fresh_root)
tar -C "$root/opt" -xzf "$tarball"
dir=/opt/cudnnup-$version-linux-x86_64
rc=0; run_in_root "$root" -- "$dir/cudnnup --json doctor" >"$work/tar.json" 2>"$work/tar.err" || rc=$?
check_doctor_json "tarball, Debian 11 minbase (glibc $(glibc_of "$root"))" "$work/tar.json" "$rc"
if run_in_root "$root" -- "$dir/cudnnup --version" >"$work/v" 2>&1 && grep -q "^cudnnup $version " "$work/v"; then
  ok "tarball: cudnnup --version says $version"
else
  fail "tarball: cudnnup --version: $(head -c 300 "$work/v")"
fi

# --- 2b. Its probe child on glibc 2.31: a stub cuDNN 9.14 set (tests/fixtures/stub_cudnn.c, built
# by Debian 11's compiler in the build root) in the clean root's default library folder must be
# found and probed in isolation, with its own version from cudnnGetVersion().
stubs=$work/stubs; mkdir -p "$stubs"
run_in_root "$(scripts/debian11-root.sh build)" "$repo/tests/fixtures:/fixtures" "$stubs:/out" -- '
  cc -shared -fPIC -fvisibility=hidden -DSTUB_VERSION=91400 -DSTUB_CUDART=12090 -DSTUB_SHIM=1 \
     -Wl,-soname,libcudnn.so.9 -o /out/libcudnn.so.9 /fixtures/stub_cudnn.c -ldl
  for c in graph ops cnn adv heuristic engines_precompiled engines_runtime_compiled; do
    cc -shared -fPIC -fvisibility=hidden -DSTUB_VERSION=91400 -DSTUB_CUDART=12090 \
       -Wl,-soname,libcudnn_$c.so.9 -o /out/libcudnn_$c.so.9 /fixtures/stub_cudnn.c
  done' >"$work/stubs.log" 2>&1 || fail "could not build the stub cuDNN in the Debian 11 build root: $(tail -3 "$work/stubs.log")"
cp "$stubs"/libcudnn*.so.9 "$root/usr/lib/x86_64-linux-gnu/"
rc=0; run_in_root "$root" -- "$dir/cudnnup --json doctor" >"$work/stub.json" 2>"$work/stub.err" || rc=$?
if /usr/bin/python3 - "$work/stub.json" <<'PY' 2>"$work/stub.check"; then
import json, sys
report = json.load(open(sys.argv[1]))
copies = [c for c in report["copies"] if c["lib_dir"] == "/usr/lib/x86_64-linux-gnu"]
assert copies, "no copy listed in /usr/lib/x86_64-linux-gnu: %s" % [c["lib_dir"] for c in report["copies"]]
c = copies[0]
assert c["library_version"] == "9.14.0", "library_version %r" % c["library_version"]
assert c["library_version_source"] == "cudnnGetVersion()", c["library_version_source"]
assert c["cuda_major"] == 12, "cuda_major %r" % c["cuda_major"]
PY
  ok "tarball: doctor (exit $rc) probed a stub cuDNN 9.14 for CUDA 12 in /usr/lib/x86_64-linux-gnu of Debian 11 through its child"
else
  fail "tarball: doctor did not probe the stub cuDNN in Debian 11: $(tail -2 "$work/stub.check") $(head -c 300 "$work/stub.err")"
fi

# --- 3. The .deb, installed with dpkg in another clean root.
root=$(fresh_root)
cp "$deb" "$root/tmp/"
if run_in_root "$root" -- "dpkg -i /tmp/$(basename "$deb")" >"$work/dpkg.log" 2>&1; then
  ok "deb: dpkg -i in Debian 11 minbase ($(dpkg-deb -f "$deb" Depends))"
  missing=()
  for f in /usr/bin/cudnnup /usr/bin/cudnnup-child /usr/share/bash-completion/completions/cudnnup \
           /usr/share/zsh/vendor-completions/_cudnnup /usr/share/fish/vendor_completions.d/cudnnup.fish \
           /usr/share/doc/cudnnup/README.md /usr/share/cudnnup/data/rules.json; do
    [[ -e $root$f ]] || missing+=("$f")
  done
  if ((${#missing[@]} == 0)); then ok "deb: binary, child, completions, docs and data in place"; else fail "deb: missing ${missing[*]}"; fi
  rc=0; run_in_root "$root" -- "cudnnup --json doctor" >"$work/deb.json" 2>"$work/deb.err" || rc=$?
  check_doctor_json "deb, /usr/bin/cudnnup" "$work/deb.json" "$rc"
  if run_in_root "$root" -- "dpkg -r cudnnup" >>"$work/dpkg.log" 2>&1 && [[ ! -e $root/usr/bin/cudnnup ]]; then
    ok "deb: dpkg -r removes it"
  else
    fail "deb: dpkg -r: $(tail -3 "$work/dpkg.log")"
  fi
else
  fail "deb: dpkg -i failed: $(tail -5 "$work/dpkg.log")"
fi
floor_dep=$(dpkg-deb -f "$deb" Depends | grep -o 'libc6 (>= [0-9.]*)' | grep -o '[0-9.]*)' | tr -d ')')
if [[ $floor_dep == "$floor" ]]; then ok "deb: Depends libc6 (>= $floor_dep) is the binaries' floor"; else fail "deb: Depends says libc6 >= '$floor_dep', the binaries need $floor"; fi
rm -rf "$work/root"

# --- 4.-6. The wheel, the Windows zip, HTTPS: their own proofs.
wheel=$(ls dist/cudnnup-"$version"-py3-none-manylinux_*_x86_64.whl 2>/dev/null | head -1 || true)
if [[ -n $wheel ]]; then tests/packaging/wheel_test.sh "$wheel" || failed=1; else fail "no wheel for $version in dist/"; fi
if ((windows)); then
  zip=dist/cudnnup-$version-windows-x86_64.zip
  if [[ -f $zip ]]; then tests/packaging/windows_zip_test.sh "$zip" || failed=1; else fail "$zip is missing"; fi
fi
/usr/bin/python3 tests/packaging/https_download_test.py "$bin/cudnnup" || failed=1

# --- 7. The tarball's binary and the development build, on this machine.
dev=build/src/cudnnup
stub914=build/tests/fixtures/v9.14.0
if [[ -x $dev && -d $stub914 ]]; then
  mkdir -p "$work/tar" "$work/stub/lib"
  tar -C "$work/tar" -xzf "$tarball"
  cp "$stub914"/* "$work/stub/lib/"
  portable=$work/tar/cudnnup-$version-linux-x86_64/cudnnup
  for scenario in plain llp; do
    for which in portable dev; do
      binary=$portable; [[ $which == dev ]] && binary=$dev
      if [[ $scenario == llp ]]; then
        LD_LIBRARY_PATH=$work/stub/lib "$binary" doctor --json >"$work/$scenario-$which.json" 2>/dev/null || true
      else
        "$binary" doctor --json >"$work/$scenario-$which.json" 2>/dev/null || true
      fi
    done
    /usr/bin/python3 tests/packaging/compare_doctor_json.py \
      "doctor --json, portable against the development build ($scenario)" \
      "$work/$scenario-portable.json" "$work/$scenario-dev.json" || failed=1
  done
  # explain by the log alone on every real log of the tests: the same JSON, byte for byte (the
  # portable build once aborted on a 1 MB log where the development build did not: an ODR clash).
  differ=()
  for _ in 1 2 3 4; do cat tests/data/explain/*.log tests/data/explain/corpus/*.log; done >"$work/all-logs.log"
  for log in tests/data/explain/*.log tests/data/explain/corpus/*.log "$work/all-logs.log"; do
    a=$("$portable" explain --no-doctor --json --file "$log" 2>&1) || true
    b=$("$dev" explain --no-doctor --json --file "$log" 2>&1) || true
    [[ $a == "$b" ]] || differ+=("$(basename "$log")")
  done
  if ((${#differ[@]} == 0)); then
    ok "explain --no-doctor --json, portable against the development build: the same output on every test log"
  else
    fail "explain --no-doctor --json differs between the portable and the development build on: ${differ[*]}"
  fi
else
  fail "the development build ($dev) and its fixtures ($stub914) are needed to compare doctor reports: cmake --build --preset default"
fi

if ((failed)); then echo "check-packages: some checks FAILED" >&2; exit 1; fi
echo "check-packages: every check passed"
