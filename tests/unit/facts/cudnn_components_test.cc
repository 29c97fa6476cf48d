// One list of cuDNN sub-libraries: install, verify, doctor, the Linux load model and the Windows
// model all take theirs from facts/cudnn_components.h (data/rules.json), so for any release they
// ask for the same components. engines_tensor_ir is required from 9.21 everywhere.
#include "facts/cudnn_components.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "facts/cudnn_files.h"
#include "facts/rules.h"
#include "gpu/verify_checks.h"
#include "install/archive_contents.h"
#include "loader/windows/which_windows.h"
#include "support/memory_fs.h"
#include "support/pe_builder.h"

namespace cudnnup {
namespace {

const Version kReleases[] = {Version{7, 6, 5}, Version{8, 9, 7}, Version{9, 1, 0}, Version{9, 19, 0},
                             Version{9, 20, 0}, Version{9, 21, 0}, Version{9, 25, 1}};

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::vector<std::string> with_shim(std::vector<std::string> subs) {
  subs.insert(subs.begin(), "cudnn");
  return subs;
}

// An archive's items for a release holding exactly `components` (Linux names, ELF x86_64 heads).
std::vector<ArchiveItem> archive_items(const Version& v, const std::vector<std::string>& components) {
  std::string elf("\x7f" "ELF\x02\x01\x01", 7);
  elf.resize(64, '\0');
  elf[18] = 62;  // e_machine x86_64, little-endian
  std::vector<ArchiveItem> items;
  items.push_back({"include/cudnn_version.h", EntryKind::kFile, 80, "",
                   "#define CUDNN_MAJOR " + std::to_string(v.major()) + "\n#define CUDNN_MINOR " + std::to_string(v.minor()) +
                       "\n#define CUDNN_PATCHLEVEL " + std::to_string(v.patch()) + "\n",
                   ""});
  for (const auto& c : components) {
    items.push_back({"lib/" + cudnn_library_file_name(c, v.major(), false), EntryKind::kFile, 64, "", elf, ""});
  }
  return items;
}

TEST(CudnnComponents, EveryCallerAsksForTheSameList) {
  for (const Version& v : kReleases) {
    SCOPED_TRACE(v.str());
    const std::vector<std::string> facts = required_cudnn_components(v);
    ASSERT_FALSE(facts.empty());
    EXPECT_EQ(facts.front(), "cudnn");
    // doctor (the rules it was given; here the built-in ones)
    EXPECT_EQ(builtin_rules().expected_components(v), facts);
    // verify
    EXPECT_EQ(with_shim(required_sublibraries(v.major(), v)), facts);
    // the Linux load model: the shim's dlopen()s
    std::vector<std::string> steps;
    for (const auto& s : cudnn_load_steps(v)) steps.push_back(s.component);
    EXPECT_EQ(with_shim(steps), facts);
    // install: an archive with exactly these passes; without any one of them it names that one
    auto complete = check_contents(archive_items(v, facts), "top", std::nullopt);
    EXPECT_TRUE(complete.missing.empty());
    EXPECT_TRUE(complete.warnings.empty()) << complete.warnings.front();
    for (const auto& left_out : facts) {
      std::vector<std::string> fewer;
      for (const auto& c : facts) {
        if (c != left_out) fewer.push_back(c);
      }
      auto r = check_contents(archive_items(v, fewer), "top", std::nullopt);
      EXPECT_EQ(r.missing, std::vector<std::string>{left_out});
      EXPECT_FALSE(r.ok());
    }
  }
}

TEST(CudnnComponents, TensorIrEngineIsRequiredFrom921) {
  EXPECT_FALSE(has(required_cudnn_components(Version{9, 20, 0}), "engines_tensor_ir"));
  EXPECT_TRUE(has(required_cudnn_components(Version{9, 21, 0}), "engines_tensor_ir"));
  EXPECT_TRUE(has(required_cudnn_components(Version{9, 25, 1, 1}), "engines_tensor_ir"));
  // Known (not an "unknown sub-library" warning) for every 9.x, optional before 9.21.
  EXPECT_TRUE(has(optional_cudnn_sublibraries(Version{9, 19, 0}), "engines_tensor_ir"));
  EXPECT_TRUE(has(known_cudnn_components(9), "engines_tensor_ir"));
  // Only the major known (the shim did not load): what every 9.x has.
  EXPECT_FALSE(has(required_sublibraries(9, Version{}), "engines_tensor_ir"));
  // ext is never required: its first release is not known.
  for (const Version& v : kReleases) EXPECT_FALSE(has(required_cudnn_components(v), "ext"));
  EXPECT_TRUE(has(optional_cudnn_sublibraries(Version{9, 25, 1}), "ext"));
  // The tensor IR engine is dlopen()ed by the graph library, like the other engines.
  auto steps = cudnn_load_steps(Version{9, 21, 0});
  auto it = std::find_if(steps.begin(), steps.end(), [](const CudnnLoadStep& s) { return s.component == "engines_tensor_ir"; });
  ASSERT_NE(it, steps.end());
  EXPECT_EQ(it->loaded_by, kCudnnGraphComponent);
}

TEST(CudnnComponents, InstallRefusesA921ArchiveWithoutTheTensorIrEngine) {
  Version v{9, 21, 0};
  std::vector<std::string> without;
  for (const auto& c : required_cudnn_components(v)) {
    if (c != "engines_tensor_ir") without.push_back(c);
  }
  auto r = check_contents(archive_items(v, without), "top", std::nullopt);
  EXPECT_EQ(r.missing, std::vector<std::string>{"engines_tensor_ir"});
  EXPECT_FALSE(r.ok());
}

TEST(CudnnComponents, WindowsModelLooksUpEveryKnownSubLibrary) {
  testing::MemoryFileSystem fs;
  const std::string dir = "C:/cudnn/bin";
  std::vector<std::string> known = known_cudnn_components(9);
  for (const auto& c : known) fs.add_file(dir + "/" + cudnn_library_file_name(c, 9, true), testing::build_pe_dll(kPeMachineX64, {"KERNEL32.dll"}));
  Environment env;
  env.os = OsKind::kWindows;
  env.vars["PATH"] = "C:\\cudnn\\bin";
  env.vars["SYSTEMROOT"] = "C:\\Windows";
  auto r = which_windows(fs, env, {}, "9");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->cudnn) << "the shim loads, so its sub-libraries are modelled";
  std::vector<std::string> listed;
  for (const auto& s : r->cudnn->sub_libraries) listed.push_back(s.component);
  known.erase(known.begin());  // the shim
  EXPECT_EQ(listed, known) << "every sub-library the facts know for 9, engines_tensor_ir and ext included";

  // Without the optional ones: no note about them (the DLL has no VERSIONINFO, so only what
  // every 9.x has is required).
  testing::MemoryFileSystem bare;
  bare.add_file(dir + "/cudnn64_9.dll", testing::build_pe_dll(kPeMachineX64, {"KERNEL32.dll"}));
  for (const auto& c : required_cudnn_sublibraries(Version{9})) {
    bare.add_file(dir + "/" + cudnn_library_file_name(c, 9, true), testing::build_pe_dll(kPeMachineX64, {"KERNEL32.dll"}));
  }
  auto b = which_windows(bare, env, {}, "9");
  ASSERT_TRUE(b) << b.error().message;
  ASSERT_TRUE(b->cudnn);
  EXPECT_EQ(b->cudnn->sub_libraries.size(), required_cudnn_sublibraries(Version{9}).size());
  for (const auto& note : b->notes) EXPECT_EQ(note.find("found nowhere"), std::string::npos) << note;
  for (const auto& note : b->cudnn->notes) EXPECT_EQ(note.find("found nowhere"), std::string::npos) << note;
}

}  // namespace
}  // namespace cudnnup
