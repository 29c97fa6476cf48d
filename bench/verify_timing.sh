#!/bin/sh
# Wall time of `cudnnup verify` on one GPU against the PyTorch one-conv check, both measured
# here, now, five times each; prints every run and the medians (docs/benchmarks.md).
#   bench/verify_timing.sh CUDNNUP COPY_DIR [PYTHON]
set -u
cudnnup=$1
copy=$2
python=${3:-python3}
here=$(dirname "$0")
now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: > /tmp/verify_times; : > /tmp/pytorch_times
for i in 1 2 3 4 5; do
  t0=$(now); "$cudnnup" verify --copy "$copy" --gpu 0 > /dev/null; rc=$?; t1=$(now)
  awk "BEGIN { print $t1 - $t0 }" | tee -a /tmp/verify_times | sed "s/^/verify run $i (exit $rc): /"
  t0=$(now); "$python" "$here/pytorch_conv.py" oneconv > /dev/null; rc=$?; t1=$(now)
  awk "BEGIN { print $t1 - $t0 }" | tee -a /tmp/pytorch_times | sed "s/^/pytorch run $i (exit $rc): /"
done
echo "median verify:  $(median < /tmp/verify_times) s"
echo "median pytorch: $(median < /tmp/pytorch_times) s"
