// A bench run as a value: `cudnnup bench` prints it, `doctor --format html --with-bench` plots it
// in the page. The run itself is in cmd_bench.cc (docs/commands/bench.md).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/app_context.h"
#include "app/render/bench_render.h"
#include "base/result.h"

namespace cudnnup {

struct BenchOptions {
  std::string copy;
  std::string shapes = "default";
  std::string compare;   // PyTorch JSON
  std::string svg;       // write the plot here
  std::string libcuda;
  std::string candidates = "pytorch";
  std::string tf32 = "on";
  int gpu = 0;
  int max_candidates = 0;  // 0: the policy's default
  int timeout_s = 600;
  bool list_cases = false;
};

struct BenchRun {
  std::optional<Error> failure;  // it could not run: no copy, no GPU (exit 3), the child failed
  int exit_code = 0;             // bench's: 0, 1 a case failed, 2 usage, 3 no driver/GPU
  nlohmann::json doc;            // the `cudnnup.bench/1` document, when it ran
  BenchHeader header;
  std::vector<BenchRow> rows;
};

BenchRun run_bench_cases(AppContext& ctx, const BenchOptions& opt);

}  // namespace cudnnup
