// The real-log corpus (tests/data/explain/corpus, INDEX.md): every log must be recognised as the
// entries its thread is about, and rank the thread's cause first in two modes: by the catalogue
// and the log's own evidence alone (MachineView none, as `explain --no-doctor`), and against a
// fixture machine built from what the thread says about the machine (`#@ fixture:`). A log whose
// first cause is known to be wrong in a mode says so (`#@ known_miss: MODE: why`); the test then
// fails if it starts to be right, so the list stays true. The rates on the held-out part are
// printed by ExplainCorpus.RatesOnTheHeldOutPart (docs/commands/explain.md quotes them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "explain/explain.h"
#include "support/explain_corpus.h"
#include "support/explain_reports.h"

namespace cudnnup {
namespace {

using testing::catalogue;
using testing::find_match;

using testing::CorpusLog;

const std::vector<CorpusLog>& corpus() {
  static const std::vector<CorpusLog> logs = testing::load_corpus();
  return logs;
}

struct Outcome {
  bool recognised = false;
  bool right_first = false;
  std::string got;  // what came first, for messages
};

Outcome judge(const CorpusLog& log, const MachineView& view) {
  Outcome o;
  ExplainReport r = explain_text(log.text, catalogue(), view);
  o.recognised = !log.expect.empty() && std::all_of(log.expect.begin(), log.expect.end(), [&r](const std::string& id) {
    return find_match(r, id) != nullptr;
  });
  const Explanation* e = log.expect.empty() ? nullptr : find_match(r, log.expect.front());
  if (!e) {
    for (const auto& m : r.matches) o.got += m.entry->id + " ";
    o.got = "no " + (log.expect.empty() ? std::string("expectation") : log.expect.front()) + " (matched: " + o.got + ")";
    return o;
  }
  if (e->causes.empty()) {
    o.got = e->entry->id + " has no cause";
    return o;
  }
  o.got = e->causes.front().check + " (" + e->causes.front().text + ")";
  o.right_first = e->causes.front().check == log.cause;
  return o;
}

struct Modes {
  Outcome catalogue, doctor;
};

Modes run_both(const CorpusLog& log) {
  Modes m;
  m.catalogue = judge(log, MachineView{});
  auto fixture = testing::fixture_report(log.fixture);
  EXPECT_TRUE(fixture.ok()) << log.name << ": " << (fixture.ok() ? "" : fixture.error().message);
  if (fixture.ok() && fixture->has_value()) {
    m.doctor = judge(log, MachineView{&**fixture, nullptr});
  } else {
    m.doctor = m.catalogue;  // `unknown` machine: doctor mode has no picture either
  }
  return m;
}

bool known_miss(const CorpusLog& log, const std::string& mode) {
  return std::find(log.known_miss.begin(), log.known_miss.end(), mode) != log.known_miss.end();
}

class CorpusLogTest : public ::testing::TestWithParam<size_t> {};

TEST_P(CorpusLogTest, RecognisedWithTheThreadsCauseFirst) {
  const CorpusLog& log = corpus()[GetParam()];
  SCOPED_TRACE(log.name + " (" + log.source + ")");
  ASSERT_FALSE(log.expect.empty()) << "a corpus log names the entries it expects";
  ASSERT_FALSE(log.cause.empty());
  ASSERT_FALSE(log.fixture.empty()) << "every corpus log describes its machine in a #@ fixture: line";
  Modes m = run_both(log);
  EXPECT_TRUE(m.catalogue.recognised) << m.catalogue.got;
  EXPECT_TRUE(m.doctor.recognised) << m.doctor.got;
  for (const auto& [mode, outcome] : {std::pair{"catalogue", m.catalogue}, std::pair{"doctor", m.doctor}}) {
    if (known_miss(log, mode)) {
      EXPECT_FALSE(outcome.right_first) << mode << ": now ranks " << log.cause << " first; remove it from #@ known_miss";
    } else {
      EXPECT_TRUE(outcome.right_first) << mode << ": expected " << log.cause << " first, got " << outcome.got;
    }
  }
}

std::string test_name(const ::testing::TestParamInfo<size_t>& info) {
  std::string name = corpus()[info.param].name;
  name = name.substr(0, name.rfind('.'));
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

std::vector<size_t> all_indexes() {
  std::vector<size_t> out(corpus().size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = i;
  return out;
}

INSTANTIATE_TEST_SUITE_P(ExplainCorpus, CorpusLogTest, ::testing::ValuesIn(all_indexes()), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CorpusLogTest);

struct Tally {
  int logs = 0, recognised = 0, first_catalogue = 0, first_doctor = 0;
  void add(const Modes& m) {
    ++logs;
    recognised += m.catalogue.recognised && m.doctor.recognised;
    first_catalogue += m.catalogue.right_first;
    first_doctor += m.doctor.right_first;
  }
};

std::string percent(int n, int of) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%d/%d = %.1f%%", n, of, of ? 100.0 * n / of : 0.0);
  return buf;
}

// The figures docs/commands/explain.md quotes; run with --gtest_filter=ExplainCorpus.Rates* to see them.
TEST(ExplainCorpus, RatesOnTheHeldOutPart) {
  if (corpus().empty()) GTEST_SKIP() << testing::corpus_dir() << " is not readable from this test binary";
  Tally held_out, all;
  const bool details = std::getenv("CUDNNUP_CORPUS_DETAILS") != nullptr;  // one line per log
  for (const auto& log : corpus()) {
    Modes m = run_both(log);
    all.add(m);
    if (log.holdout) held_out.add(m);
    if (details) {
      std::cout << (log.holdout ? "H " : "  ") << (m.catalogue.recognised ? "R " : "- ")
                << (m.catalogue.right_first ? "C " : "- ") << (m.doctor.right_first ? "D " : "- ") << log.name
                << "\n      want " << log.cause << "; catalogue: " << m.catalogue.got << "\n      doctor: " << m.doctor.got << "\n";
    }
  }
  for (const auto& [part, t] : {std::pair{"held-out", held_out}, std::pair{"all", all}}) {
    std::cout << "explain corpus, " << part << " logs: " << t.logs << "\n"
              << "  recognised:                          " << percent(t.recognised, t.logs) << "\n"
              << "  thread's cause first, catalogue+log: " << percent(t.first_catalogue, t.logs) << "\n"
              << "  thread's cause first, doctor mode:   " << percent(t.first_doctor, t.logs) << "\n";
  }
  EXPECT_EQ(held_out.logs, 32) << "INDEX.md: 32 of the 80 logs are held out";
  // Issue 19's bars: 95% recognised, 90% with the thread's cause first. Doctor mode meets them. The
  // catalogue-and-log mode does not: several held-out logs print a line that means different causes
  // on different machines (their #@ known_miss headers say which), and only a machine tells them
  // apart. Its floor here keeps it from getting worse; the per-log tests pin each miss.
  EXPECT_GE(held_out.recognised * 100, held_out.logs * 95) << "issue 19's bar: 95% of the held-out logs recognised";
  EXPECT_GE(held_out.first_doctor * 100, held_out.logs * 90) << "issue 19's bar: 90% with the thread's cause first";
  EXPECT_GE(held_out.first_catalogue * 100, held_out.logs * 75) << "below the catalogue-and-log floor";
}

// Held-out logs are not the catalogue's examples: no entry cites their threads.
TEST(ExplainCorpus, HeldOutThreadsAreNotCatalogueSources) {
  for (const auto& log : corpus()) {
    if (!log.holdout) continue;
    for (const auto& e : catalogue().entries) {
      EXPECT_EQ(std::find(e.sources.begin(), e.sources.end(), log.source), e.sources.end())
          << e.id << " cites the held-out thread of " << log.name;
    }
  }
}

}  // namespace
}  // namespace cudnnup
