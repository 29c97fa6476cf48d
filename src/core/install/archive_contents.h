// Confirms what an archive really holds, from its entries: the cuDNN version in its header, the
// library set for that major (data/rules.json, with its sources), each library's binary format and
// machine (ELF for Linux, PE for Windows), and whether that agrees with the file name's claims.
// Pure logic over what the extraction pass collected; nothing is run or loaded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "install/archive_name.h"
#include "install/archive_policy.h"
#include "base/version.h"

namespace cudnnup {

// One admitted entry, below the top folder.
struct ArchiveItem {
  std::string rel;          // "lib/libcudnn.so.9", "include/cudnn_version.h"
  EntryKind kind = EntryKind::kFile;
  uint64_t size = 0;        // bytes actually read
  std::string link_target;  // symlinks
  std::string head;         // the first bytes (up to kHeadBytes) of a regular file
  std::string sha256;       // of the whole file, hex
};
constexpr size_t kHeadBytes = 64 * 1024;

enum class BinaryFormat { kNone, kElf, kPe, kArStatic };

struct LibraryCheck {
  std::string rel;
  std::string component;       // "cudnn" (shim), "ops", "cnn_infer", ...
  int major = 0;               // from the name
  bool is_link = false;
  BinaryFormat format = BinaryFormat::kNone;
  std::string machine;         // "x86_64", "aarch64", "ppc64le" from the header (facts/machines.h)
};

struct ContentReport {
  std::string top_dir;
  Version header_version;        // from include/cudnn_version.h (cudnn.h for 7.x)
  std::string header_path;
  ArchivePlatform platform = ArchivePlatform::kUnknown;  // from the library formats
  std::string machine;           // "x86_64" ... from the library headers
  int library_major = 0;
  std::vector<LibraryCheck> libraries;
  std::vector<std::string> missing;  // required library components not present
  std::vector<std::string> errors;   // each one blocks installation
  std::vector<std::string> warnings;
  bool ok() const { return errors.empty(); }
};

// `name` is what the file name claimed (nullopt when the name was not recognised).
ContentReport check_contents(const std::vector<ArchiveItem>& items, const std::string& top_dir,
                             const std::optional<ArchiveName>& name);

// Reads the format and machine from the first bytes of a binary ("" machine when unknown).
BinaryFormat sniff_binary(const std::string& head, std::string* machine);

// Where an archive item goes: the store keeps the archive's own layout (include/, lib/ or
// bin/), the toolkit merge maps lib -> lib64 on Linux and bin -> bin, lib/x64 -> lib/x64 on
// Windows. Returns "" for items that are not installed (LICENSE stays in the store only).
std::string merge_destination(const std::string& rel, bool windows, const std::string& linux_lib_dir);

}  // namespace cudnnup
