// find_elf_section (binfmt/elf.h), which doctor uses to read only ld.so's .rodata, against
// readelf -S (binutils) on real files of this machine: ld.so, libc, the stub cuDNN libraries and
// the test program itself. Each named section must be found at readelf's offset with its size.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <sstream>

#include "binfmt/elf.h"
#include "platform/real_filesystem.h"

namespace cudnnup::testing {
namespace {

// "NAME OFFSET SIZE" per section, from readelf -S -W; empty when readelf is missing.
std::vector<std::tuple<std::string, uint64_t, uint64_t>> readelf_sections(const std::string& path) {
  std::vector<std::tuple<std::string, uint64_t, uint64_t>> out;
  std::string cmd = "readelf -S -W '" + path + "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) return out;
  char line[512];
  while (fgets(line, sizeof line, pipe.get())) {
    // "  [13] .rodata  PROGBITS  0000000000027000 027000 006018 00   A  0   0 32"
    std::string text(line);
    size_t close = text.find(']');
    if (text.find('[') == std::string::npos || close == std::string::npos) continue;
    std::istringstream in(text.substr(close + 1));
    std::string name, type, addr, off, size;
    if (!(in >> name >> type >> addr >> off >> size) || name.empty() || name[0] != '.') continue;
    if (type == "NOBITS") continue;  // .bss and friends take no bytes of the file
    out.emplace_back(name, std::stoull(off, nullptr, 16), std::stoull(size, nullptr, 16));
  }
  return out;
}

TEST(ElfSections, FoundWhereReadelfSaysTheyAre) {
  auto fs = make_real_filesystem();
  std::vector<std::string> files = {"/lib64/ld-linux-x86-64.so.2", "/proc/self/exe",
                                    std::string(CUDNNUP_FIXTURE_DIR) + "/v9.19.0/libcudnn_graph.so.9"};
  if (auto libc = fs->canonical("/lib/x86_64-linux-gnu/libc.so.6")) files.push_back(*libc);
  size_t compared = 0;
  for (const auto& path : files) {
    auto real = fs->canonical(path);
    ASSERT_TRUE(real) << path;
    auto info = fs->stat(*real);
    ASSERT_TRUE(info) << *real;
    RangeReader read = [&](uint64_t offset, size_t n) { return fs->read_range(*real, offset, n); };
    for (const auto& [name, offset, size] : readelf_sections(*real)) {
      auto found = find_elf_section(read, info->size, name);
      ASSERT_TRUE(found) << *real << " " << name;
      // readelf lists the first section of a name; so does find_elf_section.
      EXPECT_EQ(found->offset, offset) << *real << " " << name;
      EXPECT_EQ(found->size, size) << *real << " " << name;
      ++compared;
    }
    EXPECT_FALSE(find_elf_section(read, info->size, ".no_such_section")) << *real;
  }
  if (compared == 0) GTEST_SKIP() << "readelf (binutils) is not installed";
  EXPECT_GT(compared, 40u);
  // Not ELF, or cut off before the section table: no answer rather than a wrong one.
  RangeReader text = [](uint64_t, size_t) -> Result<std::string> { return std::string("#!/bin/sh\n"); };
  EXPECT_FALSE(find_elf_section(text, 10, ".rodata"));
  auto ld = fs->read_file("/lib64/ld-linux-x86-64.so.2", 8 << 20);
  ASSERT_TRUE(ld);
  std::string cut = ld->substr(0, ld->size() / 2);
  RangeReader half = [&](uint64_t offset, size_t n) -> Result<std::string> {
    return offset >= cut.size() ? std::string() : cut.substr(size_t(offset), n);
  };
  EXPECT_FALSE(find_elf_section(half, cut.size(), ".rodata"));
}

}  // namespace
}  // namespace cudnnup::testing
