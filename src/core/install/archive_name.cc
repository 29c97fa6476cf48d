#include "install/archive_name.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "base/paths.h"
#include "base/strings.h"
#include "base/numbers.h"

namespace cudnnup {
namespace {


// Browsers and download managers append " (1)", "(2)" to repeated downloads.
std::string strip_duplicate_suffix(std::string s) {
  static const std::regex dup(R"(\s*\(\d+\)\s*$)");
  return std::regex_replace(s, dup, "");
}

const char* kFormsHelp =
    "expected an official cuDNN archive name such as cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz, "
    "cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip or cudnn-11.2-linux-x64-v8.1.1.33.tgz";

}  // namespace

std::string ArchiveName::platform_key() const {
  if (platform != ArchivePlatform::kLinux && platform != ArchivePlatform::kWindows) return {};
  return std::string(archive_platform_name(platform)) + "-" + archive_arch_name(arch);
}

std::string ArchiveName::expected_top_dir() const {
  if (era == ArchiveEra::kLegacy) return "cuda";
  auto [base, ext] = split_archive_extension(canonical_name);
  return base;
}

std::pair<std::string, std::string> split_archive_extension(std::string_view file_name) {
  static const char* kExts[] = {".tar.xz", ".tar.gz", ".tar.bz2", ".tgz", ".txz", ".tar", ".zip"};
  std::string low = ascii_lower(file_name);
  for (const char* ext : kExts) {
    std::string e(ext);
    if (low.size() > e.size() && low.compare(low.size() - e.size(), e.size(), e) == 0) {
      return {std::string(file_name.substr(0, file_name.size() - e.size())), std::string(file_name.substr(file_name.size() - e.size()))};
    }
  }
  return {std::string(file_name), {}};
}

Result<ArchiveName> parse_archive_name(std::string_view path) {
  ArchiveName out;
  out.file_name = std::string(paths::basename(paths::normalize(path)));
  auto [base, ext] = split_archive_extension(out.file_name);
  out.extension = ascii_lower(ext);
  out.base_name = base;
  std::string name = ascii_lower(strip_duplicate_suffix(base));

  if (name.rfind("cudnn_samples", 0) == 0 || name.rfind("cudnn-samples", 0) == 0) {
    return make_error(ErrorCode::kUnsupported,
                      "'" + out.file_name + "' is a cuDNN samples archive, not the library; download the "
                      "cudnn-<platform>-<version>_cuda<M>-archive file instead", std::string(path));
  }
  if (name.rfind("cudnn_jit", 0) == 0 || name.rfind("cudnn-jit", 0) == 0) {
    return make_error(ErrorCode::kUnsupported,
                      "'" + out.file_name + "' is the cuDNN-JIT subset archive; cudnnup installs the full "
                      "cudnn-<platform>-<version>_cuda<M>-archive", std::string(path));
  }

  // 8.3 and later: cudnn-<os>-<arch>-<4-part>_cuda<M[.m]>-archive. Hand-renamed variants use '-'
  // and '_' interchangeably, write x86-64, or drop "-archive".
  static const std::regex modern(
      R"(^cudnn[-_ ](linux|windows)[-_ ](x86[-_]?64|x64|amd64|sbsa|aarch64|ppc64le|arm64)[-_ ]v?(\d+\.\d+\.\d+(?:\.\d+)?)[-_ ]cuda[-_]?(\d+(?:\.\d+)?)(?:[-_ ]archive)?$)");
  // <= 8.2: cudnn-<cuda M.m>-<os>-<arch>-v<4-part>
  static const std::regex legacy(
      R"(^cudnn[-_ ](\d+\.\d+)[-_ ](linux|windows10|windows|osx)[-_ ](x64|x86[-_]?64|ppc64le|aarch64sbsa|sbsa)[-_ ]v(\d+\.\d+\.\d+(?:\.\d+)?)$)");
  std::smatch m;
  std::string version_text;  // as written: a part too long for a number leaves out.version unknown
  if (std::regex_match(name, m, modern)) {
    out.era = ArchiveEra::kArchive;
    out.platform = m[1] == "linux" ? ArchivePlatform::kLinux : ArchivePlatform::kWindows;
    std::string arch = m[2];
    out.arch = archive_arch_from_word(arch);
    version_text = m[3].str();
    out.version = Version::parse(version_text).value_or(Version{});
    out.cuda_variant = m[4];
    bool ok_combo = out.platform == ArchivePlatform::kLinux
                        ? out.arch != ArchiveArch::kArm64
                        : (out.arch == ArchiveArch::kX86_64 || out.arch == ArchiveArch::kArm64);
    if (!ok_combo) {
      return make_error(ErrorCode::kUnsupported,
                        "'" + out.file_name + "' names " + archive_platform_name(out.platform) + " on " + arch +
                            ", which NVIDIA does not ship (Linux: x86_64, sbsa, aarch64, ppc64le; Windows: x86_64, arm64)",
                        std::string(path));
    }
    out.canonical_name = "cudnn-" + out.platform_key() + "-" + out.version.str() + "_cuda" + out.cuda_variant +
                         "-archive" + (out.platform == ArchivePlatform::kWindows ? ".zip" : ".tar.xz");
  } else if (std::regex_match(name, m, legacy)) {
    out.era = ArchiveEra::kLegacy;
    out.cuda_variant = m[1];
    std::string os = m[2];
    out.platform = os == "linux" ? ArchivePlatform::kLinux : os == "osx" ? ArchivePlatform::kMacos : ArchivePlatform::kWindows;
    out.arch = archive_arch_from_word(m[3].str());
    version_text = m[4].str();
    out.version = Version::parse(version_text).value_or(Version{});
    out.canonical_name = "cudnn-" + out.cuda_variant + "-" + os + "-" + legacy_archive_arch_word(out.arch) + "-v" + out.version.str() +
                         (out.platform == ArchivePlatform::kWindows ? ".zip" : ".tgz");
  } else {
    return make_error(ErrorCode::kUsage, "'" + out.file_name + "' is not a cuDNN archive name: " + kFormsHelp,
                      std::string(path));
  }
  if (out.version.parts.size() != 4 || out.version.major() < 7) {
    return make_error(ErrorCode::kUsage,
                      "'" + out.file_name + "' has version " + version_text +
                          "; official archives carry a 4-part version of cuDNN 7 or later (e.g. 9.1.0.70)",
                      std::string(path));
  }
  auto cuda_major = checked_int(std::string_view(out.cuda_variant).substr(0, out.cuda_variant.find('.')), 1, 999);
  if (!cuda_major) {
    return make_error(ErrorCode::kUsage, "'" + out.file_name + "' names CUDA " + out.cuda_variant + ", which is not a CUDA version",
                      std::string(path));
  }
  out.cuda_major = *cuda_major;
  out.canonical = out.file_name == out.canonical_name;
  return out;
}

const KnownArchive* find_known_archive(const std::vector<KnownArchive>& known, std::string_view file_name) {
  auto name = parse_archive_name(file_name);
  if (!name) return nullptr;
  for (const auto& k : known) {
    if (k.file_name == name->canonical_name) return &k;
  }
  return nullptr;
}

}  // namespace cudnnup
