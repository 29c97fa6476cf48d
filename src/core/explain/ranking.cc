#include "explain/ranking.h"

#include <algorithm>

#include "explain/placeholders.h"

namespace cudnnup {
namespace {

constexpr int kVerdictWeight = 1000;

std::string joined_says(const std::vector<EvidenceNote>& notes, bool positive) {
  std::string out;
  for (const auto& n : notes) {
    if ((n.effect > 0) != positive) continue;
    out += (out.empty() ? "" : "; ") + n.says;
  }
  return out;
}

std::string first_reason(const RankedCause& c, int highest_prior, int own_prior) {
  std::string up = joined_says(c.log_evidence, true);
  if (c.verdict == Verdict::kHolds) {
    return "Ranked first because this machine shows it" + (up.empty() ? std::string(".") : "; the log agrees: " + up + ".");
  }
  if (!up.empty()) return "Ranked first because the log says " + up + ".";
  if (own_prior < highest_prior) return "Ranked first because the causes that are usually more common are ruled out or made less likely.";
  return "Ranked first because it is the most common cause of this message in reports; neither the log nor the machine "
         "decides between the causes.";
}

std::string other_reason(const RankedCause& c) {
  std::string down = joined_says(c.log_evidence, false);
  if (!down.empty()) return "Lowered because the log says " + down + ".";
  std::string up = joined_says(c.log_evidence, true);
  if (!up.empty()) return "Raised because the log says " + up + ".";
  return "";
}

}  // namespace

std::vector<RankedCause> rank_causes(const CatalogueEntry& entry, const ErrorCatalogue& catalogue, const Variables& vars,
                                     const LogFacts& facts, const MachineView& machine) {
  std::vector<std::pair<RankedCause, int>> ranked;  // with the cause's prior
  for (const auto& cause : entry.causes) {
    if (!all_hold(cause.when, vars, facts)) continue;
    CheckResult r = run_check(cause.check, machine, vars, cause.params);
    RankedCause rc;
    rc.text = fill(cause.text, vars);
    rc.check = cause.check;
    rc.verdict = r.verdict;
    rc.evidence = r.evidence;
    rc.log_evidence = weigh_evidence(cause, catalogue, vars, facts);
    rc.score = cause.weight;
    for (const auto& n : rc.log_evidence) rc.score += n.effect;
    if (r.verdict == Verdict::kHolds) rc.score += kVerdictWeight;
    if (r.verdict == Verdict::kDoesNotHold) rc.score -= kVerdictWeight;
    ranked.emplace_back(std::move(rc), cause.weight);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first.score > b.first.score; });
  int highest_prior = 0;
  for (const auto& [c, prior] : ranked) highest_prior = std::max(highest_prior, prior);
  std::vector<RankedCause> out;
  for (auto& [c, prior] : ranked) {
    c.reason = out.empty() ? first_reason(c, highest_prior, prior) : other_reason(c);
    out.push_back(std::move(c));
  }
  return out;
}

std::string platform_contradiction(const std::string& what, const std::string& platform, const Report& report) {
  if (platform.empty() || report.os.empty() || platform == report.os) return "";
  return what + " is from " + platform + " and this machine runs " + report.os;
}

std::string machine_contradiction(const LogFacts& facts, const Report& report) {
  auto fact = [&facts](const char* k) { auto it = facts.find(k); return it == facts.end() ? std::string() : it->second; };
  if (auto other = platform_contradiction("the log", fact("platform"), report); !other.empty()) return other;
  bool log_shows_gpu = !fact("total_mib").empty() || !fact("gpu_name").empty() || !fact("gpu_cc").empty();
  if (log_shows_gpu && report.driver.gpus.empty()) {
    return "the log shows a GPU" + (fact("gpu_name").empty() ? std::string() : " (" + fact("gpu_name") + ")") +
           " and this machine has none";
  }
  std::string cc = fact("gpu_cc");
  if (!cc.empty() && !report.driver.gpus.empty()) {
    bool here = std::any_of(report.driver.gpus.begin(), report.driver.gpus.end(), [&cc](const Gpu& g) {
      return !g.compute_capability.known() || g.compute_capability.truncated(2).str() == cc;
    });
    if (!here) return "the log's GPU has compute capability " + cc + " and no GPU here has";
  }
  return "";
}

}  // namespace cudnnup
