#include "facts/cudnn_files.h"

#include <cctype>

namespace cudnnup {

std::optional<CudnnLibraryName> parse_cudnn_library_name(std::string_view file_name) {
  // Hand-written rather than std::regex: this runs on every file of every candidate directory.
  std::string name(file_name);
  std::string lower = name;
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  CudnnLibraryName out;
  if (lower.size() > 4 && lower.compare(lower.size() - 4, 4, ".dll") == 0 && lower.compare(0, 5, "cudnn") == 0) {
    // cudnn64_9.dll, cudnn_ops_infer64_8.dll, cudnn_graph64_9.dll
    std::string stem = lower.substr(0, lower.size() - 4);
    size_t pos = stem.rfind("64_");
    if (pos == std::string::npos || pos + 3 >= stem.size()) return std::nullopt;
    std::string major = stem.substr(pos + 3);
    for (char c : major) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    }
    std::string base = stem.substr(0, pos);  // "cudnn" or "cudnn_ops_infer"
    if (base == "cudnn") out.component = "cudnn";
    else if (base.compare(0, 6, "cudnn_") == 0 && base.size() > 6) out.component = base.substr(6);
    else return std::nullopt;
    out.major = std::stoi(major);
    out.windows = true;
    return out;
  }
  if (name.compare(0, 8, "libcudnn") != 0) return std::nullopt;
  size_t so = name.find(".so");
  if (so == std::string::npos) return std::nullopt;
  std::string base = name.substr(3, so - 3);  // "cudnn" or "cudnn_ops"
  if (base == "cudnn") out.component = "cudnn";
  else if (base.compare(0, 6, "cudnn_") == 0 && base.size() > 6) out.component = base.substr(6);
  else return std::nullopt;
  std::string rest = name.substr(so + 3);  // "", ".9", ".9.14.0"
  if (rest.empty()) {
    out.dev_link = true;
    return out;
  }
  if (rest[0] != '.') return std::nullopt;  // libcudnn.so~ or libcudnn.sox
  auto version = Version::parse(rest.substr(1));
  if (!version) return std::nullopt;
  out.major = version->major();
  if (version->parts.size() >= 2) out.version = *version;
  return out;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::optional<CudnnDistInfo> parse_cudnn_dist_info(std::string_view name) {
  constexpr std::string_view kPrefix = "nvidia_cudnn_cu", kSuffix = ".dist-info";
  if (name.size() <= kPrefix.size() + kSuffix.size() || name.substr(0, kPrefix.size()) != kPrefix ||
      name.substr(name.size() - kSuffix.size()) != kSuffix) {
    return std::nullopt;
  }
  std::string_view rest = name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());  // "13-9.19.0.56"
  size_t dash = rest.find('-');
  if (dash == std::string_view::npos || !all_digits(rest.substr(0, dash)) || dash > 3) return std::nullopt;
  auto version = Version::parse(rest.substr(dash + 1));
  if (!version) return std::nullopt;
  return CudnnDistInfo{std::stoi(std::string(rest.substr(0, dash))), *version};
}

std::string cudnn_library_file_name(const std::string& component, int major, bool windows) {
  std::string base = component == "cudnn" ? "cudnn" : "cudnn_" + component;
  if (windows) return base + "64_" + std::to_string(major) + ".dll";
  return "lib" + base + ".so." + std::to_string(major);
}

std::optional<HeaderVersion> parse_cudnn_header_version(std::string_view text) {
  // Headers pad with spaces or tabs ("#define CUDNN_MAJOR      5", "#  define ..."). Scanned by
  // hand: std::regex over a 100 KB cudnn.h cost more than the rest of doctor together.
  int major = -1, minor = -1, patch = -1;
  HeaderVersion out;
  auto skip_blanks = [&](size_t& i) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  };
  for (size_t pos = text.find('#'); pos != std::string_view::npos; pos = text.find('#', pos + 1)) {
    size_t i = pos + 1;
    skip_blanks(i);
    if (text.compare(i, 6, "define") != 0) continue;
    i += 6;
    size_t name_start = i;
    skip_blanks(i);
    if (i == name_start) continue;
    size_t name_end = i;
    while (name_end < text.size() && (std::isalnum(static_cast<unsigned char>(text[name_end])) || text[name_end] == '_')) {
      ++name_end;
    }
    std::string_view name = text.substr(i, name_end - i);
    i = name_end;
    size_t value_start = i;
    skip_blanks(i);
    if (i == value_start) continue;
    int value = 0;
    size_t digits = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && digits < 9) {
      value = value * 10 + (text[i++] - '0');
      ++digits;
    }
    if (digits == 0) continue;
    if (name == "CUDNN_MAJOR" && major < 0) major = value;
    else if (name == "CUDNN_MINOR" && minor < 0) minor = value;
    else if (name == "CUDNN_PATCHLEVEL" && patch < 0) patch = value;
    else if (name == "CUDNN_MAX_SM_MAJOR_NUMBER") out.max_sm_major = value;
    else if (name == "CUDNN_MAX_SM_MINOR_NUMBER") out.max_sm_minor = value;
  }
  if (major < 0 || minor < 0 || patch < 0) return std::nullopt;
  out.version = Version{major, minor, patch};
  return out;
}

}  // namespace cudnnup
