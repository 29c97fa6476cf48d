// What an official cuDNN archive's file name says: version, platform, architecture and CUDA
// variant, for every naming era and the hand-renamed forms seen in
// guides. The name is only a claim; core/archive_contents.h confirms it from the contents.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/version.h"
#include "facts/known_archives.h"
#include "facts/machines.h"  // ArchivePlatform, ArchiveArch and their names

namespace cudnnup {

enum class ArchiveEra {
  kLegacy,   // <= 8.2: cudnn-11.2-linux-x64-v8.1.1.33.tgz, top folder "cuda/"
  kArchive,  // >= 8.3: cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz, top folder = base name
};

struct ArchiveName {
  std::string file_name;      // as given, without directories
  std::string base_name;      // file name without the archive extension
  std::string extension;      // ".tar.xz", ".tgz", ".tar.gz", ".tar", ".zip"
  Version version;            // 9.1.0.70
  ArchivePlatform platform = ArchivePlatform::kUnknown;
  ArchiveArch arch = ArchiveArch::kUnknown;
  std::string cuda_variant;   // "12", "11.5", "10.2" as written
  int cuda_major = 0;         // 12, 11, 10
  ArchiveEra era = ArchiveEra::kArchive;
  bool canonical = true;      // false when the name was recognised but is not NVIDIA's spelling
  std::string canonical_name; // NVIDIA's spelling of the same archive

  // NVIDIA's redistrib platform key: "linux-x86_64", "linux-sbsa", "linux-aarch64",
  // "linux-ppc64le", "windows-x86_64", "windows-arm64" ("" for legacy macOS).
  std::string platform_key() const;
  // The single top folder the archive should hold: "cuda" (legacy) or the canonical base name.
  std::string expected_top_dir() const;
};

// Recognises an archive by its file name (a path is accepted; only the last component counts).
// kUnsupported when it is some other NVIDIA archive (samples, JIT), kUsage when it is not a cuDNN
// archive name at all; both messages say which forms are understood.
Result<ArchiveName> parse_archive_name(std::string_view file_name);

// The row of `known` for the archive `file_name` names, in any spelling parse_archive_name reads
// (case, a browser's " (1)", a missing "-archive"); nullptr when it names none.
const KnownArchive* find_known_archive(const std::vector<KnownArchive>& known, std::string_view file_name);

// Splits a known archive extension off: "x.tar.xz" -> {"x", ".tar.xz"}; {name, ""} when none.
std::pair<std::string, std::string> split_archive_extension(std::string_view file_name);

}  // namespace cudnnup
