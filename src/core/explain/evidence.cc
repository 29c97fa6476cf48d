#include "explain/evidence.h"

#include <cstdlib>

namespace cudnnup {
namespace {

// The leading number of a value ("707", "16", "8.6", "384.69" -> 384.69); false when there is none.
bool as_number(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return end != text.c_str();
}

}  // namespace

std::string lookup(const Variables& vars, const LogFacts& facts, const std::string& name) {
  if (auto it = vars.find(name); it != vars.end() && !it->second.empty()) return it->second;
  if (auto it = facts.find(name); it != facts.end()) return it->second;
  return "";
}

bool condition_holds(const Condition& c, const Variables& vars, const LogFacts& facts) {
  std::string value = lookup(vars, facts, c.name);
  if (value.empty()) return false;
  if (c.op == Condition::Op::kRegex) {
    const CatalogueRegex* re = c.regex.get();
    return re && std::regex_search(value, *re);
  }
  double v = 0;
  if (!as_number(value, &v)) return false;
  switch (c.op) {
    case Condition::Op::kLess: return v < c.number;
    case Condition::Op::kLessOrEqual: return v <= c.number;
    case Condition::Op::kGreater: return v > c.number;
    case Condition::Op::kGreaterOrEqual: return v >= c.number;
    case Condition::Op::kRegex: break;
  }
  return false;
}

bool all_hold(const std::vector<Condition>& conditions, const Variables& vars, const LogFacts& facts) {
  for (const auto& c : conditions) {
    if (!condition_holds(c, vars, facts)) return false;
  }
  return true;
}

std::vector<EvidenceNote> weigh_evidence(const CauseSpec& cause, const ErrorCatalogue& catalogue, const Variables& vars,
                                         const LogFacts& facts) {
  std::vector<EvidenceNote> out;
  if (cause.evidence.empty()) return out;
  Variables both = facts;
  for (const auto& [k, v] : vars) {
    if (!v.empty()) both[k] = v;
  }
  for (const auto& [id, effect] : cause.evidence) {
    auto it = catalogue.evidence.find(id);
    if (it == catalogue.evidence.end() || !all_hold(it->second.when, vars, facts)) continue;
    out.push_back({id, effect, fill(it->second.says, both)});
  }
  return out;
}

}  // namespace cudnnup
