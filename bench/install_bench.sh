#!/usr/bin/env bash
# Install speed vs a plain `tar -xf` of the same archive into the same filesystem (docs/benchmarks.md).
# Packs the image's real cuDNN libraries into an official-layout archive of >= 500 MB, then times,
# RUNS times each (median), interleaved: `tar -xf`, `tar -xf && sync -f` (tar does not make the
# files durable, cudnnup does), `cudnnup install` (store mode: policy checks, links on the
# resolved tree, sha256 of every file, ELF verification, manifest, syncfs, commit by rename),
# `openssl dgst -sha256` of the archive (one core's SHA-256 over it: no install that checks the archive's
# sha256 can finish sooner), `cudnnup install --sha256` (the same, plus the archive's own sha256
# checked, as for a known official archive) and that again with the progress line on (stderr a terminal, through
# script(1)). With BASELINE=another cudnnup binary, `install --sha256` of that one too, for a
# before/after in the same run. Peak RSS from GNU time -v. Not run in CI.
#   usage: bench/install_bench.sh [BUILD_DIR] [FORMAT: tar|tar.xz] [RUNS]
# Environment: CUDNN_LIB_DIR / CUDNN_INCLUDE_DIR (default: the image's /usr/local/cuda-13.0),
# CUDNNUP (the binary, default BUILD_DIR/src/cudnnup), BASELINE (optional), TIME (GNU time,
# default /usr/bin/time).
set -euo pipefail
build=${1:-build}
format=${2:-tar}
runs=${3:-5}
cudnnup=${CUDNNUP:-"$(cd "$build" && pwd)/src/cudnnup"}
cuda=/usr/local/cuda-13.0
libdir=${CUDNN_LIB_DIR:-$cuda/lib}
incdir=${CUDNN_INCLUDE_DIR:-$cuda/include}
TIME=${TIME:-/usr/bin/time}
work=${BENCH_DIR:-/tmp/cudnnup-bench}
# A build number NVIDIA never published: the real 9.19.0.56 name is in data/known_archives.json, whose
# size and sha256 this repacked archive cannot match (cudnnup would rightly refuse it).
top=cudnn-linux-x86_64-9.19.0.99_cuda13-archive
archive="$work/$top.$format"

[[ -x $cudnnup ]] || { echo "build cudnnup first: ninja -C $build cudnnup" >&2; exit 2; }
[[ -e $libdir/libcudnn.so.9 ]] || { echo "no cuDNN in $libdir" >&2; exit 2; }
rm -rf "$work" && mkdir -p "$work/src/$top/include" "$work/src/$top/lib" "$work/src/$top/share"
cp "$incdir"/cudnn*.h "$work/src/$top/include/"
for f in "$libdir"/libcudnn*.so.9; do
  n=$(basename "$f"); b=${n%.so.9}
  cp "$f" "$work/src/$top/lib/$b.so.9.19.0"
  ln -s "$b.so.9.19.0" "$work/src/$top/lib/$b.so.9"
  ln -s "$b.so.9" "$work/src/$top/lib/$b.so"
done
echo "benchmark archive (real cuDNN 9.19 libraries + 16 MiB of random filler to pass 500 MB)" > "$work/src/$top/LICENSE"
head -c $((16 << 20)) /dev/urandom > "$work/src/$top/share/filler.bin"
case $format in
  tar) tar -C "$work/src" -cf "$archive" "$top" ;;
  tar.xz) tar -C "$work/src" -cf - "$top" | xz -1 -T0 > "$archive" ;;
  *) echo "format: tar or tar.xz" >&2; exit 2 ;;
esac
rm -rf "$work/src"
size=$(stat -c %s "$archive")
echo "archive: $archive ($size bytes)"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# timed LIST_NAME CMD...: appends "wall cpu" (cpu = user + system, children included) to LIST_NAME.
timed() {
  local list=$1; shift
  "$TIME" -f "%e %U %S" -o "$work/time.out" "$@" >/dev/null 2>"$work/cmd.err" || { cat "$work/cmd.err" >&2; exit 1; }
  read -r w u s < <(tail -1 "$work/time.out")
  eval "$list+=(\"$w $(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')\")"
}
archive_sha=$(sha256sum "$archive" | cut -d' ' -f1)
baseline=${BASELINE:-}
tar_t=(); tarsync_t=(); sha_t=(); inst_t=(); instsha_t=(); instprog_t=(); base_t=()
for i in $(seq "$runs"); do
  d="$work/t$i"; mkdir -p "$d"; sync
  timed tar_t tar -xf "$archive" -C "$d"
  rm -rf "$d"; mkdir -p "$d"; sync
  timed tarsync_t sh -c "tar -xf '$archive' -C '$d' && sync -f '$d'"
  rm -rf "$d"; sync
  # The floor for `install --sha256`: the archive's own SHA-256 on one core (OpenSSL, as cudnnup
  # uses; coreutils' sha256sum is several times slower), from the page cache.
  timed sha_t openssl dgst -sha256 "$archive"
  timed inst_t env CUDNNUP_HOME="$work/store$i" "$cudnnup" install "$archive"
  rm -rf "$work/store$i"; sync
  # As when a published sha256 is known (known_archives.json, a redistrib manifest): the archive
  # itself is hashed too, on its own thread.
  timed instsha_t env CUDNNUP_HOME="$work/store$i" "$cudnnup" install "$archive" --sha256 "$archive_sha"
  rm -rf "$work/store$i"; sync
  # The same with the progress line: script(1) gives cudnnup a terminal for stderr.
  timed instprog_t script -qec "env CUDNNUP_HOME='$work/store$i' '$cudnnup' install '$archive' --sha256 $archive_sha" /dev/null
  rm -rf "$work/store$i"; sync
  if [[ -n $baseline ]]; then
    timed base_t env CUDNNUP_HOME="$work/store$i" "$baseline" install "$archive" --sha256 "$archive_sha"
    rm -rf "$work/store$i"; sync
  fi
done
rss_line=$(CUDNNUP_HOME="$work/store-rss" "$TIME" -v "$cudnnup" install "$archive" 2>&1 >/dev/null | grep "Maximum resident")
tar_rss=$(mkdir -p "$work/rss" && "$TIME" -v tar -xf "$archive" -C "$work/rss" 2>&1 | grep "Maximum resident")
rm -rf "$work/store-rss" "$work/rss"
col() { local n=$1; shift; for x in "$@"; do echo "$x" | cut -d' ' -f"$n"; done; }
report() {  # NAME values...
  local name=$1; shift
  local w c
  w=$(col 1 "$@" | median); c=$(col 2 "$@" | median)
  printf '%-22s wall %s s (runs: %s)  cpu %s s\n' "$name" "$w" "$(col 1 "$@" | tr '\n' ' ')" "$c"
  eval "m_${name//[^a-z]/_}_w=$w; m_${name//[^a-z]/_}_c=$c"
}
echo "runs: $runs, format: $format, archive bytes: $size, load: $(cut -d' ' -f1-3 /proc/loadavg)"
report tar "${tar_t[@]}"
report tarsync "${tarsync_t[@]}"
report archivesha "${sha_t[@]}"
report install "${inst_t[@]}"
report installsha "${instsha_t[@]}"
report installprogress "${instprog_t[@]}"
[[ -n $baseline ]] && report baseline "${base_t[@]}"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
echo "ratio install / tar -xf:        wall $(ratio "$m_install_w" "$m_tar_w")  cpu $(ratio "$m_install_c" "$m_tar_c")"
echo "ratio install / tar -xf + sync: wall $(ratio "$m_install_w" "$m_tarsync_w")  cpu $(ratio "$m_install_c" "$m_tarsync_c")"
echo "ratio openssl dgst -sha256 of the archive / tar -xf (the floor of --sha256): wall $(ratio "$m_archivesha_w" "$m_tar_w")"
echo "ratio install --sha256 / tar -xf: wall $(ratio "$m_installsha_w" "$m_tar_w")  cpu $(ratio "$m_installsha_c" "$m_tar_c")"
echo "ratio install --sha256 with progress / tar -xf: wall $(ratio "$m_installprogress_w" "$m_tar_w")  cpu $(ratio "$m_installprogress_c" "$m_tar_c")"
[[ -n $baseline ]] && echo "ratio install --sha256 / BASELINE install --sha256: wall $(ratio "$m_installsha_w" "$m_baseline_w")  cpu $(ratio "$m_installsha_c" "$m_baseline_c")"
echo "cudnnup peak RSS: ${rss_line##*: } kB; tar peak RSS: ${tar_rss##*: } kB"
rm -rf "$work"
