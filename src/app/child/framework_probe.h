// `doctor --probe-frameworks`: runs each framework's interpreter in a child (under a timeout),
// imports the framework, runs a tiny cuDNN-using op when a GPU is there, and reports the cuDNN
// version it really got and the cuDNN files in its /proc/self/maps; then compares that with
// the prediction of core/frameworks.h.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "loader/frameworks.h"
#include "base/version.h"

namespace cudnnup {

struct FrameworkProbe {
  std::string framework;
  std::string interpreter;
  bool ran = false;                 // the child started and printed its report
  std::string failure;              // import error, timeout, crash
  std::optional<Version> runtime_cudnn;  // what the framework (or the mapped shim) reports
  std::string runtime_source;       // "torch.backends.cudnn.version()", "cudnnGetVersion() of the mapped shim"
  std::vector<std::string> mapped;  // cuDNN files in /proc/self/maps (canonical)
  bool gpu_op_ran = false;          // the tiny op ran, so sub-libraries had a chance to load
  std::string op_error;
  // Comparison with the prediction.
  bool agrees = false;
  std::vector<std::string> disagreements;
};

// One probe per report that names an interpreter and predicts a load. `timeout_ms` per child.
std::vector<FrameworkProbe> probe_frameworks(const std::vector<FrameworkReport>& predictions, int timeout_ms = 120000);

nlohmann::ordered_json framework_probe_to_json(const FrameworkProbe& p);
std::string framework_probe_to_text(const FrameworkProbe& p, bool color);

}  // namespace cudnnup
