#!/usr/bin/env python3
"""The PyTorch side of `cudnnup bench`, and the "one conv" check that verify is compared with.

  python3 bench/pytorch_conv.py bench CASES.json > pytorch.json
      Times F.conv2d with torch.backends.cudnn.benchmark=True on every case that
      `cudnnup bench --list-cases` printed (same shapes, types and layouts), the same way
      cudnnup times its engines: CUDA events around back-to-back runs, median of 15 samples.
  python3 bench/pytorch_conv.py oneconv
      The accepted native-less check: import torch, run one convolution, print the cuDNN version.
      Timed as a whole process by bench/verify_timing.sh.

The output names the cuDNN library the process really loaded (from /proc/self/maps), so the
comparison can show that both sides ran the same cuDNN.
"""
import json
import os
import sys
import time

REST_S = 0.25  # cudnnup's kRestMs in src/app/cmd_bench.cc
SAMPLES = 15  # cudnnup's kSamples


def loaded_cudnn():
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1]
                if "/libcudnn.so" in path or "/libcudnn_graph.so" in path:
                    return path
    except OSError:
        pass
    return ""


def oneconv():
    import torch
    x = torch.randn(8, 3, 64, 64, device="cuda")
    w = torch.randn(16, 3, 3, 3, device="cuda")
    y = torch.nn.functional.conv2d(x, w, padding=1)
    torch.cuda.synchronize()
    print("cudnn", torch.backends.cudnn.version(), "ok", tuple(y.shape), loaded_cudnn())


def bench(cases_path):
    import torch
    import torch.nn.functional as F
    torch.backends.cudnn.benchmark = True  # what frameworks' users turn on for speed
    dtypes = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
    with open(cases_path) as f:
        cases = json.load(f)["cases"]
    rows = []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for case in cases:
        dtype = dtypes[case["type"]]
        fmt = torch.channels_last if case["layout"] == "NHWC" else torch.contiguous_format
        x = torch.rand(case["n"], case["c"], case["h"], case["w"], device="cuda", dtype=dtype).mul_(2).sub_(1)
        w = torch.rand(case["k"], case["c"], case["r"], case["s"], device="cuda", dtype=dtype).mul_(2).sub_(1)
        x = x.contiguous(memory_format=fmt)
        w = w.contiguous(memory_format=fmt)
        conv = lambda: F.conv2d(x, w, padding=case["pad"], stride=case["stride"])
        for _ in range(3):  # the first call runs cuDNN's benchmark and picks the algorithm
            conv()
        torch.cuda.synchronize()
        start.record()
        conv()
        end.record()
        end.synchronize()
        once = max(start.elapsed_time(end), 1e-3)
        iterations = min(max(int(20.0 / once), 3), 500)
        # The same rest before the measured window as cudnnup bench takes (kRestMs): under
        # sustained load the GPU lowers its clocks, and both sides must start alike.
        torch.cuda.synchronize()
        time.sleep(REST_S)
        conv()
        samples = []
        for _ in range(SAMPLES):
            start.record()
            for _ in range(iterations):
                conv()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) / iterations)
        in_order = list(samples)
        samples.sort()
        ms = samples[len(samples) // 2]
        flops = 2.0 * case["n"] * case["k"] * case["c"] * case["r"] * case["s"] * \
            ((case["h"] + 2 * case["pad"] - case["r"]) // case["stride"] + 1) * \
            ((case["w"] + 2 * case["pad"] - case["s"]) // case["stride"] + 1)
        rows.append({"key": case["key"], "ms": ms, "tflops": flops / (ms * 1e-3) / 1e12,
                     "samples": [round(x, 5) for x in in_order]})
        print(f"{case['key']:45s} {ms:9.4f} ms {rows[-1]['tflops']:8.1f} TFLOP/s", file=sys.stderr)
    # What decides PyTorch's engine candidates (aten/src/ATen/native/cudnn/Conv_v8.cpp), so that
    # `cudnnup bench --compare` can show where the two sides differ.
    json.dump({"schema": "cudnnup.pytorch-bench/1", "torch": torch.__version__,
               "cudnn": torch.backends.cudnn.version(), "cudnn_library": loaded_cudnn(),
               "allow_tf32": torch.backends.cudnn.allow_tf32,
               "benchmark_limit": getattr(torch.backends.cudnn, "benchmark_limit", None),
               "heuristic_mode_b": os.environ.get("TORCH_CUDNN_USE_HEURISTIC_MODE_B", "") not in ("", "0"),
               "rows": rows}, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "oneconv":
        oneconv()
    elif len(sys.argv) >= 3 and sys.argv[1] == "bench":
        bench(sys.argv[2])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
