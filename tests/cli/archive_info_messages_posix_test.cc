// `cudnnup archive-info` in every state an archive can be in: each line it prints about the archive
// and the machine, and each message of its JSON, is a whole sentence (a capital letter first, a
// full stop last), and the sentence says what that state is.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "support/archive_builder.h"
#include "support/fixture_libs.h"
#include "support/run_cli.h"

namespace cudnnup {
#if CUDNNUP_HAVE_INSTALL  // archive-info is built with install
namespace {

using namespace cudnnup::testing;

// The first character is an ASCII capital (a sentence may open with a path: "lib/x is empty"),
// the last a full stop.
bool whole_sentence(const std::string& s) {
  if (s.empty() || s.back() != '.') return false;
  return (s[0] >= 'A' && s[0] <= 'Z') || s.find('/') < s.find(' ');
}

// The lines after the file name, without the status mark; headings and the install hint are not
// sentences and are left out.
std::vector<std::string> message_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  std::string line;
  std::getline(in, line);  // the file name
  while (std::getline(in, line)) {
    if (line.rfind("This machine", 0) == 0 || line.rfind("Install: ", 0) == 0) continue;
    size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos) continue;
    line = line.substr(start);
    for (const char* mark : {"✓ ", "✗ ", "! ", "i "}) {
      if (line.rfind(mark, 0) == 0) line = line.substr(std::string(mark).size());
    }
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> json_messages(const nlohmann::json& j) {
  std::vector<std::string> out;
  if (j.contains("known")) out.push_back(j["known"].value("message", ""));
  for (const char* list : {"errors", "warnings"}) {
    if (j.contains("contents") && j["contents"].contains(list)) {
      for (const auto& m : j["contents"][list]) out.push_back(m.get<std::string>());
    }
  }
  for (const auto& s : j.value("suitability", nlohmann::json::array())) out.push_back(s.value("message", ""));
  return out;
}

class ArchiveInfoMessages : public ::testing::Test {
 protected:
  TempDir tmp;
  // CUDA_HOME names the one toolkit the machine check sees (make_toolkit).
  std::map<std::string, std::string> env() const {
    std::map<std::string, std::string> e = {{"HOME", tmp / "home"}, {"CUDNNUP_HOME", tmp / "store"}, {"NO_COLOR", "1"}};
    if (!toolkit.empty()) e["CUDA_HOME"] = toolkit;
    return e;
  }
  std::string toolkit;
  void make_toolkit(const std::string& root, int cuda_version) {
    write_text(root + "/include/cuda.h", "#define CUDA_VERSION " + std::to_string(cuda_version) + "\n");
    make_dirs(root + "/lib64");
    toolkit = root;
  }
  std::string archive(const std::string& top, const std::string& file_name = "") {
    std::string path = tmp / (file_name.empty() ? top + ".tar.xz" : file_name);
    write_archive(path, official_entries(OfficialLayout{top}), ArchiveFormat::kTarXz);
    return path;
  }
  // Runs archive-info in text and JSON; every message must be a sentence; returns the text.
  std::string run(std::vector<std::string> args, int exit_code) {
    auto text = run_cli([&] { auto a = args; a.insert(a.begin(), "archive-info"); return a; }(), env());
    EXPECT_EQ(text.exit_code, exit_code) << text.out << text.err;
    for (const auto& l : message_lines(text.out)) EXPECT_TRUE(whole_sentence(l)) << "not a sentence: '" << l << "'\n" << text.out;
    auto json = run_cli([&] { auto a = args; a.insert(a.begin(), {"--json", "archive-info"}); return a; }(), env());
    EXPECT_EQ(json.exit_code, exit_code) << json.out;
    EXPECT_FALSE(json.json.is_null()) << json.out;
    for (const auto& m : json_messages(json.json)) EXPECT_TRUE(whole_sentence(m)) << "not a sentence in JSON: '" << m << "'";
    return text.out;
  }
};

TEST_F(ArchiveInfoMessages, AnUnknownReleaseThatIsSoundSaysWhereItComesFromCannotBeChecked) {
  // Build 99 was never published, so it is in no table.
  std::string out = run({archive("cudnn-linux-x86_64-9.19.0.99_cuda13-archive")}, 0);
  EXPECT_NE(out.find("The file name says cuDNN 9.19.0.99 for CUDA 13 on linux-x86_64."), std::string::npos) << out;
  EXPECT_NE(out.find("so where it comes from cannot be checked."), std::string::npos) << out;
  EXPECT_NE(out.find("its header says cuDNN 9.19.0, and it has 8 library files (ELF x86_64)."), std::string::npos) << out;
  EXPECT_NE(out.find("The archive is for Linux, like this machine."), std::string::npos) << out;
  EXPECT_NE(out.find("The libraries are built for x86_64, like this machine."), std::string::npos) << out;
}

TEST_F(ArchiveInfoMessages, AKnownNameWithOtherBytesSaysWhatNvidiaPublishes) {
  std::string out = run({archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive"), "--no-machine"}, 1);
  EXPECT_NE(out.find("The archive does NOT match NVIDIA's published sha256 for cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("(not inspected: --no-machine)"), std::string::npos) << out;
  EXPECT_EQ(out.find("toolkit"), std::string::npos) << "--no-machine judges no toolkit: " << out;
}

TEST_F(ArchiveInfoMessages, WrongPlatformAndArchitecture) {
  // Linux x86_64 libraries under a Windows name and under an sbsa name.
  std::string windows = run({archive("cudnn-windows-x86_64-9.19.0.99_cuda13-archive"), "--no-machine"}, 1);
  EXPECT_NE(windows.find("The archive is for the wrong platform: the file name says windows, but the libraries are Linux ELF files."),
            std::string::npos)
      << windows;
  EXPECT_NE(windows.find("The archive is for Windows, but this machine runs Linux."), std::string::npos) << windows;
  std::string sbsa = run({archive("cudnn-linux-sbsa-9.19.0.99_cuda13-archive"), "--no-machine"}, 1);
  EXPECT_NE(sbsa.find("The archive is for the wrong architecture: the file name says sbsa, but the libraries are built for x86_64."),
            std::string::npos)
      << sbsa;
}

TEST_F(ArchiveInfoMessages, ACudaMismatchAgainstAToolkitNamesTheMatchingArchive) {
  std::string cuda = tmp / "cuda-12.4";
  make_toolkit(cuda, 12040);
  std::string out = run({archive("cudnn-linux-x86_64-9.19.0.99_cuda13-archive"), "--cuda-dir", cuda}, 1);
  EXPECT_NE(out.find("The archive is built for CUDA 13, but the toolkit here is " + cuda + " (CUDA 12.4); the matching archive is the "
                     "_cuda12 one."),
            std::string::npos)
      << out;
}

TEST_F(ArchiveInfoMessages, BrokenAndForeignFilesSayWhereReadingStopped) {
  std::string whole = archive("cudnn-linux-x86_64-9.19.0.99_cuda13-archive");
  std::string bytes = read_file_bytes(whole);
  make_dirs(tmp / "cut");
  std::string cut = tmp / "cut/cudnn-linux-x86_64-9.19.0.99_cuda13-archive.tar.xz";
  write_text(cut, bytes.substr(0, bytes.size() / 3));
  std::string truncated = run({cut, "--no-machine"}, 1);
  EXPECT_NE(truncated.find("Reading the archive stopped: "), std::string::npos) << truncated;

  std::string notes = tmp / "notes.txt";
  write_text(notes, "hello\n");
  std::string foreign = run({notes, "--no-machine"}, 1);
  EXPECT_NE(foreign.find("The file name is not an official cuDNN archive name."), std::string::npos) << foreign;
  EXPECT_NE(foreign.find("Reading the archive stopped: "), std::string::npos) << foreign;
}

}  // namespace
#endif  // CUDNNUP_HAVE_INSTALL
}  // namespace cudnnup
