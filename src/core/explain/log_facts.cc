#include "explain/log_facts.h"

#include <regex>
#include <set>

#include "base/numbers.h"
#include "base/strings.h"
#include "base/version.h"
#include "explain/placeholders.h"
#include "explain/prefix_search.h"
#include "facts/rules.h"

namespace cudnnup {
namespace {

constexpr size_t kMaxFactLine = 1500;  // as for messages: std::regex recurses per character
constexpr int kFactContinuation = 2;

// The text a fact's pattern is tried on: the line with the rest of its record.
std::string record_window(const LogLines& lines, int line) {
  std::string window = lines.text[line].substr(0, kMaxFactLine);
  for (int k : continuation_lines(lines, line, kFactContinuation, kMaxFactLine)) window += " " + lines.text[k];
  return window;
}

// A fact that says what the log is (its platform): a second, different value makes it unsure,
// and `contradicted` collects its key.
void set_fact(LogFacts& facts, std::set<std::string>& contradicted, const std::string& key, const std::string& value) {
  auto [it, fresh] = facts.emplace(key, value);
  if (!fresh && it->second != value) contradicted.insert(key);
}

bool read_fact(const FactSpec& spec, const LogLines& lines, const std::vector<int>& candidates, LogFacts& facts,
               std::set<std::string>& contradicted) {
  // The first line whose record matches gives the fact (its regex is compiled only when needed).
  for (int line : candidates) {
    const std::string window = record_window(lines, line);
    bool found = false;
    for_each_match(spec.pattern, window, ascii_lower(window), std::string::npos, [&](const std::smatch& m) {
      for (size_t g = 1; g < spec.pattern.group_names.size() && g < m.size(); ++g) {
        if (!spec.pattern.group_names[g].empty() && m[g].matched) facts.emplace(spec.pattern.group_names[g], m[g].str());
      }
      found = true;
      return false;
    });
    if (!found) continue;
    for (const auto& [k, v] : spec.set) set_fact(facts, contradicted, k, v);
    return true;
  }
  return false;
}

// "750" (darknet's compute_capability = 750), "sm_86", "86", "8.6" -> "8.6".
std::string normalise_cc(std::string cc) {
  if (cc.starts_with("sm_") || cc.starts_with("SM_")) cc = cc.substr(3);
  if (cc.find('.') != std::string::npos) return cc;
  auto n = checked_int(cc, 0, 9999);
  if (!n) return "";
  if (*n >= 100) return std::to_string(*n / 100) + "." + std::to_string(*n / 10 % 10);
  if (*n >= 10) return std::to_string(*n / 10) + "." + std::to_string(*n % 10);
  return "";
}

// The newest CUDA whose minimum driver (for the platform) is at most `driver`.
std::string cuda_for_driver(const Version& driver, bool windows) {
  Version best;
  for (const auto& row : builtin_rules().driver_minimums) {
    const Version& min = windows ? row.windows_driver : row.linux_driver;
    if (min.known() && min <= driver && best < row.cuda) best = row.cuda;
  }
  return best.known() ? best.truncated(2).str() : "";
}

}  // namespace

void derive_log_facts(LogFacts& facts) {
  auto free_bytes = checked_unsigned(value_of(facts, "free_bytes"));
  auto total_bytes = checked_unsigned(value_of(facts, "total_bytes"));
  if (free_bytes && total_bytes && *total_bytes > 0 && *free_bytes <= *total_bytes) {
    facts["free_mib"] = std::to_string(*free_bytes >> 20);
    facts["total_mib"] = std::to_string(*total_bytes >> 20);
    facts["free_percent"] = std::to_string(*free_bytes * 100 / *total_bytes);
  }
  if (auto it = facts.find("gpu_cc"); it != facts.end()) {
    it->second = normalise_cc(it->second);
    if (it->second.empty()) facts.erase(it);
  }
  // Below the lowest compute capability any cuDNN release in rules.json supports.
  if (auto cc = Version::parse(value_of(facts, "gpu_cc"))) {
    Version floor;
    for (const auto& row : builtin_rules().compute_capability) {
      if (!floor.known() || row.min_cc < floor) floor = row.min_cc;
    }
    if (floor.known() && *cc < floor) {
      facts["gpu_below_every_cudnn"] = "yes";
      facts["cudnn_cc_floor"] = floor.str();
    }
  }
  if (auto d = Version::parse(value_of(facts, "driver_version")); d && d->major() >= 100) {
    std::string cuda = cuda_for_driver(*d, value_of(facts, "platform") == "windows");
    if (!cuda.empty()) facts["driver_cuda"] = cuda;
  }
}

LogFacts read_log_facts(const LogLines& lines, const std::vector<std::vector<int>>& fact_lines, const ErrorCatalogue& catalogue,
                        const std::vector<std::pair<std::string, std::string>>& message_facts) {
  LogFacts facts;
  std::set<std::string> contradicted;
  for (size_t i = 0; i < catalogue.facts.size() && i < fact_lines.size(); ++i) {
    read_fact(catalogue.facts[i], lines, fact_lines[i], facts, contradicted);
  }
  for (const auto& [k, v] : message_facts) set_fact(facts, contradicted, k, v);
  // A log that shows both a Windows DLL and a Linux library (WSL, a message naming both, two
  // machines pasted together) says nothing sure about its platform: no fact, rather than the
  // catalogue's first one, which set the machine aside for the Linux lines too.
  for (const auto& key : contradicted) facts.erase(key);
  derive_log_facts(facts);
  return facts;
}

}  // namespace cudnnup
