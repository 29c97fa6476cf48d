// Doctor's checks of one cuDNN copy, as a table: each check has a name, the finding ids it may
// report (facts/finding_ids.h, shared with explain) and a function from the copy and the machine's
// Report to findings. check_copy (diagnose/checks.h) runs them in table order.
#pragma once

#include <string_view>
#include <vector>

#include "base/environment.h"
#include "base/model.h"
#include "facts/rules.h"

namespace cudnnup {

// What every copy check reads, with the three facts most of them derive computed once.
struct CopyCheckInput {
  const CudnnCopy& copy;
  const Report& report;
  const Rules& rules;
  const Environment& env;
  Version version;    // what the library says, else the header
  int major = 0;      // of the copy's files, else of `version`
  int built_for = 0;  // CUDA major it was built for (the probe's cudnnGetCudartVersion, else files); 0 unknown
};

CopyCheckInput make_copy_check_input(const CudnnCopy& copy, const Report& report, const Rules& rules,
                                     const Environment& env);

struct CopyCheck {
  std::string_view name;                 // e.g. "library_files"
  std::vector<std::string_view> ids;     // the finding ids it may report
  std::vector<Finding> (*run)(const CopyCheckInput&);
};

// In the order doctor reports them.
const std::vector<CopyCheck>& copy_checks();

// One check by name (tests); null when there is none.
const CopyCheck* find_copy_check(std::string_view name);

}  // namespace cudnnup
