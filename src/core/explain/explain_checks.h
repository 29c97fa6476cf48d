// The machine checks `cudnnup explain` uses to rank the causes of a message: each is a pure
// function from the doctor's Report (and, when known, what `which` resolved) plus the variables
// captured from the message, to holds / does not hold / unknown with the evidence.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/model.h"

namespace cudnnup {

enum class Verdict { kHolds, kUnknown, kDoesNotHold };
const char* verdict_name(Verdict v);  // "holds", "unknown", "ruled out"

struct CheckResult {
  Verdict verdict = Verdict::kUnknown;
  std::string evidence;  // one or two sentences naming paths and versions
};

// What a consumer's loader would search, when `which` resolved it. Without it, a copy counts as
// "on the search path" when the doctor found it through LD_LIBRARY_PATH, ld.so.cache, a system
// library directory or PATH (CudnnCopy::found_via).
struct LoaderView {
  std::string consumer;                  // "python /venv/bin/python (torch)", ...
  std::vector<std::string> search_dirs;  // canonical, in search order
};

struct MachineView {
  const Report* report = nullptr;        // null: no machine picture (every check says unknown)
  const LoaderView* loader = nullptr;    // optional
};

using Variables = std::map<std::string, std::string>;
using CheckParams = std::map<std::string, std::string>;

bool is_known_check(std::string_view id);
std::vector<std::string> known_checks();
CheckResult run_check(std::string_view id, const MachineView& machine, const Variables& vars, const CheckParams& params);

// True when the copy is where a plain program's loader looks (see LoaderView).
bool copy_on_search_path(const CudnnCopy& copy, const MachineView& machine);

}  // namespace cudnnup
