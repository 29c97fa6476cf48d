// Builds archives at test time with libarchive's writer: official layouts (stub libraries from
// tests/fixtures) and hostile ones (traversal, device nodes, hard links ...) that tar and zip
// commands would refuse to create.
#pragma once

#include <string>
#include <vector>

#include "install/archive_policy.h"

namespace cudnnup::testing {

// The top folder of an official-looking Linux archive of a release NVIDIA never published, so no
// published hash applies and installs from it skip that check.
inline const std::string kUnpublishedLinuxTop = "cudnn-linux-x86_64-9.19.0.99_cuda13-archive";

struct FakeEntry {
  FakeEntry(std::string p, EntryKind k = EntryKind::kFile, std::string d = {}, std::string l = {})
      : path(std::move(p)), kind(k), data(std::move(d)), link_target(std::move(l)) {}
  std::string path;
  EntryKind kind = EntryKind::kFile;
  std::string data;         // file bytes
  std::string link_target;  // symlink / hard link
  long long declared_size = -1;  // tar header size when it must differ from data (truncation)
  int mode = -1;                 // permission bits when they must differ from 0644/0755/0777
};

enum class ArchiveFormat { kTarXz, kTarGz, kTar, kZip };

// Writes the entries in order; aborts the test on failure. (Builds with libarchive only.)
void write_archive(const std::string& out_path, const std::vector<FakeEntry>& entries, ArchiveFormat format);

std::string read_file_bytes(const std::string& path);

// A small valid PE DLL for the given machine (0x8664 x64, 0xAA64 arm64), padded to `size`.
std::string fake_pe(uint16_t machine = 0x8664, size_t size = 4096);

struct OfficialLayout {
  std::string top;                // e.g. cudnn-linux-x86_64-9.19.0.56_cuda13-archive
  int major = 9, minor = 19, patch = 0;
  std::string stub_variant = "v9.19.0";  // which built stub set supplies the Linux libraries
  bool windows = false;
  bool windows_bin_x64 = false;   // DLLs under bin/x64/ (Windows archives from 9.18 on) instead of bin/
};
// The entries of an official redist archive: include/ headers, lib/ with libX.so.M.m.p real files
// plus .so.M and .so links (Linux) or bin/*.dll, lib/x64/*.lib (Windows), and LICENSE.
std::vector<FakeEntry> official_entries(const OfficialLayout& layout);

}  // namespace cudnnup::testing
