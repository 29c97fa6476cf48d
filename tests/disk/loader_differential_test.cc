// The differential test against the real loader (docs/loader-differential.md): random but
// reproducible scenarios (tests/support/loader_scenario.h) run as real processes that print
// what they mapped and bound, and `cudnnup which --for` must agree file for file, with the same
// mixed / not-mixed verdict and the same outcome of cuDNN's sub-library version check.
//
//   CUDNNUP_DIFF_SCENARIOS=N   how many (default 330, so that at least 300 run; docs/loader-differential.md runs 20000)
//   CUDNNUP_DIFF_SEED=S        the first seed (default 1); scenario i uses seed S + i
//   CUDNNUP_DIFF_ONLY=SEED     run just that scenario (printed on failure)
//   CUDNNUP_DIFF_KEEP_GOING=1  do not stop at 20 failures; print the disagreements per block
//   CUDNNUP_TEST_BINARY=PATH   the cudnnup to test (default: this build's)
// Linux loader fixtures (tests/fixtures/loader.cmake) are built only off Windows.
#ifdef CUDNNUP_FIXTURE_DIR
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>

#include "support/fixture_libs.h"
#include "support/loader_scenario.h"
#include "support/run_cli.h"

namespace cudnnup {
namespace {

using testing::Block;

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

TEST(LoaderDifferential, WhichAgreesWithTheRealLoader) {
  uint64_t count = env_number("CUDNNUP_DIFF_SCENARIOS", 330);
  uint64_t first = env_number("CUDNNUP_DIFF_SEED", 1);
  uint64_t only = env_number("CUDNNUP_DIFF_ONLY", 0);
  bool keep_going = env_number("CUDNNUP_DIFF_KEEP_GOING", 0) != 0;
  if (only) {
    first = only;
    count = 1;
  }
  std::string binary = testing::cudnnup_binary();
  bool can_unshare = testing::mount_namespace_available();
  if (!can_unshare) std::cout << "[ note ] no private mount namespace here: ld.so.conf/ld.so.cache scenarios are skipped\n";

  std::map<Block, uint64_t> occurred, failed_with;
  uint64_t ran = 0, skipped = 0, failed = 0;
  std::map<std::string, uint64_t> skip_reasons;
  for (uint64_t i = 0; i < count; ++i) {
    testing::Scenario s = testing::generate_scenario(first + i);
    testing::TempDir root;
    testing::Outcome o = testing::run_scenario(s, root.path(), binary, can_unshare);
    if (o.skipped) {
      ++skipped;
      ++skip_reasons[o.skip_reason];
      continue;
    }
    ++ran;
    for (Block b : s.blocks) ++occurred[b];
    if (o.disagreements.empty()) continue;
    ++failed;
    for (Block b : s.blocks) ++failed_with[b];
    if (failed <= 20) {
      std::string why;
      for (const auto& d : o.disagreements) why += "\n    " + d;
      ADD_FAILURE() << "scenario " << s.describe() << "\n  disagreements:" << why << "\n  truth:\n" << o.truth.raw
                    << "\n  rerun: CUDNNUP_DIFF_ONLY=" << s.seed << " " << "cudnnup_disk_tests "
                    << "--gtest_filter=LoaderDifferential.*";
    }
    if (failed == 20 && !keep_going) {
      std::cout << "[ stop ] 20 scenarios disagree; CUDNNUP_DIFF_KEEP_GOING=1 runs them all\n";
      break;
    }
  }
  std::cout << "[ loader differential ] seeds " << first << ".." << first + count - 1 << ": " << ran << " ran, "
            << skipped << " skipped, " << failed << " disagreed (cudnnup: " << binary << ")\n";
  for (const auto& [reason, n] : skip_reasons) std::cout << "  skipped " << n << ": " << reason << "\n";
  std::cout << "  building block                        occurred  in disagreeing scenarios\n";
  for (int b = 0; b < int(Block::kCount); ++b) {
    Block block = Block(b);
    std::string name = testing::block_name(block);
    std::cout << "  " << name << std::string(name.size() < 38 ? 38 - name.size() : 1, ' ') << occurred[block] << "\t"
              << failed_with[block] << "\n";
    bool needs_namespace = block == Block::kLdSoConf;
    if (count >= 300 && !(needs_namespace && !can_unshare)) {
      EXPECT_GT(occurred[block], 0u) << "the generator never produced: " << name;
    }
  }
  // The CI pass draws 330 so that at least 300 are compared after the skips.
  if (count >= 330 && can_unshare) {
    EXPECT_GE(ran, 300u) << "too many scenarios skipped";
  }
  EXPECT_EQ(failed, 0u);
}

}  // namespace
}  // namespace cudnnup
#endif  // CUDNNUP_FIXTURE_DIR
