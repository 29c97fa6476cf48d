#!/usr/bin/env bash
# Install speed vs a plain `tar -xf` of the same archive into the same filesystem (docs/benchmarks.md).
# Packs the image's real cuDNN libraries into an official-layout archive of >= 500 MB, then times,
# RUNS times each (median): `tar -xf`, `tar -xf && sync -f` (tar does not make the files durable,
# cudnnup does), and `cudnnup install` (store mode: policy checks, sha256 of the archive and of
# every file, ELF verification, manifest, syncfs, commit by rename). Peak RSS from /usr/bin/time -v.
# Not run in CI.
#   usage: bench/install_bench.sh [BUILD_DIR] [FORMAT: tar|tar.xz] [RUNS]
set -euo pipefail
build=${1:-build}
format=${2:-tar}
runs=${3:-5}
cudnnup="$(cd "$build" && pwd)/src/cudnnup"
cuda=/usr/local/cuda-13.0
work=${BENCH_DIR:-/tmp/cudnnup-bench}
top=cudnn-linux-x86_64-9.19.0.56_cuda13-archive
archive="$work/$top.$format"

[[ -x $cudnnup ]] || { echo "build cudnnup first: ninja -C $build cudnnup" >&2; exit 2; }
[[ -e $cuda/lib/libcudnn.so.9 ]] || { echo "no cuDNN in $cuda" >&2; exit 2; }
rm -rf "$work" && mkdir -p "$work/src/$top/include" "$work/src/$top/lib" "$work/src/$top/share"
cp "$cuda"/include/cudnn*.h "$work/src/$top/include/"
for f in "$cuda"/lib/libcudnn*.so.9; do
  n=$(basename "$f"); b=${n%.so.9}
  cp "$f" "$work/src/$top/lib/$b.so.9.19.0"
  ln -s "$b.so.9.19.0" "$work/src/$top/lib/$b.so.9"
  ln -s "$b.so.9" "$work/src/$top/lib/$b.so"
done
echo "benchmark archive (real cuDNN 9.19 libraries + 16 MiB of random filler to pass 500 MB)" > "$work/src/$top/LICENSE"
head -c $((16 << 20)) /dev/urandom > "$work/src/$top/share/filler.bin"
case $format in
  tar) tar -C "$work/src" -cf "$archive" "$top" ;;
  tar.xz) tar -C "$work/src" -cf - "$top" | xz -1 -T2 > "$archive" ;;
  *) echo "format: tar or tar.xz" >&2; exit 2 ;;
esac
rm -rf "$work/src"
size=$(stat -c %s "$archive")
echo "archive: $archive ($size bytes)"

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
tar_t=(); tarsync_t=(); inst_t=()
for i in $(seq "$runs"); do
  d="$work/t$i"; mkdir -p "$d"; sync
  s=$(now); tar -xf "$archive" -C "$d"; e=$(now); tar_t+=("$(echo "$e - $s" | bc)")
  rm -rf "$d"; mkdir -p "$d"; sync
  s=$(now); tar -xf "$archive" -C "$d"; sync -f "$d"; e=$(now); tarsync_t+=("$(echo "$e - $s" | bc)")
  rm -rf "$d"; sync
  s=$(now); CUDNNUP_HOME="$work/store$i" "$cudnnup" install "$archive" >/dev/null; e=$(now); inst_t+=("$(echo "$e - $s" | bc)")
  rm -rf "$work/store$i"; sync
done
rss_line=$(CUDNNUP_HOME="$work/store-rss" /usr/bin/time -v "$cudnnup" install "$archive" 2>&1 >/dev/null | grep "Maximum resident")
tar_rss=$(mkdir -p "$work/rss" && /usr/bin/time -v tar -xf "$archive" -C "$work/rss" 2>&1 | grep "Maximum resident")
rm -rf "$work/store-rss" "$work/rss"
m_tar=$(printf '%s\n' "${tar_t[@]}" | median)
m_tarsync=$(printf '%s\n' "${tarsync_t[@]}" | median)
m_inst=$(printf '%s\n' "${inst_t[@]}" | median)
echo "runs: $runs, format: $format, archive bytes: $size"
echo "tar -xf:             ${tar_t[*]}  median $m_tar s"
echo "tar -xf && sync -f:  ${tarsync_t[*]}  median $m_tarsync s"
echo "cudnnup install:     ${inst_t[*]}  median $m_inst s"
echo "ratio install / tar -xf:          $(echo "scale=2; $m_inst / $m_tar" | bc)"
echo "ratio install / tar -xf + sync:   $(echo "scale=2; $m_inst / $m_tarsync" | bc)"
echo "cudnnup peak RSS: ${rss_line##*: } kB; tar peak RSS: ${tar_rss##*: } kB"
rm -rf "$work"
