#include "app/cli/version_info.h"

#include <nlohmann/json.hpp>
#include <iostream>

#include "app/cli/exit_codes.h"
#include "base/json_text.h"
#include "explain/error_catalogue.h"
#include "facts/rules.h"

namespace cudnnup {

int print_version(const AppContext& ctx) {
  std::string commit = build_commit(), date = build_commit_date();
  std::string rules = builtin_rules_version();
  std::string errors = builtin_error_catalogue_version();
  if (ctx.options.json) {
    auto or_null = [](const std::string& s) { return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s); };
    nlohmann::ordered_json out = {{"schema", "cudnnup.version/1"},
                                  {"version", CUDNNUP_VERSION},
                                  {"commit", or_null(commit)},
                                  {"commit_date", or_null(date)},
                                  {"data", {{"rules", or_null(rules)}, {"error_catalogue", or_null(errors)}}}};
    std::cout << dump_json(out, 2) << std::endl;
    return kExitOk;
  }
  std::cout << "cudnnup " << CUDNNUP_VERSION << " (commit " << (commit.empty() ? "unknown" : commit.substr(0, 12)) << ", "
            << (date.empty() ? "date unknown" : date) << ")\n"
            << "data: rules " << (rules.empty() ? "?" : rules) << ", error catalogue " << (errors.empty() ? "?" : errors)
            << "\n";
  return kExitOk;
}

}  // namespace cudnnup
