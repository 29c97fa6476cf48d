#include "facts/cudnn_files.h"

#include <cctype>

#include "base/strings.h"
#include "base/numbers.h"

namespace cudnnup {
namespace {

// A component as it follows "cudnn_": lower-case letters, digits and '_' ("engines_precompiled").
bool valid_component(std::string_view c) {
  if (c.empty()) return false;
  for (char ch : c) {
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_')) return false;
  }
  return true;
}

// "cudnn" -> "cudnn", "cudnn_ops" -> "ops"; "" when the stem is not cuDNN's.
std::string component_of(std::string_view stem) {
  if (stem == "cudnn") return "cudnn";
  if (stem.starts_with("cudnn_") && valid_component(stem.substr(6))) return std::string(stem.substr(6));
  return {};
}

// A major written in a name: digits only, and small enough to be one ("99999999999" is not).
std::optional<int> major_number(std::string_view digits) {
  return checked_int(digits, 0, 9999);
}

// Strips "_v<digits>" off the end of a stem: "cudnn_ops_static_v9" -> ("cudnn_ops_static", 9).
int strip_v_major(std::string_view& stem) {
  size_t v = stem.rfind("_v");
  if (v == std::string_view::npos) return 0;
  auto major = major_number(stem.substr(v + 2));
  if (!major) return 0;
  stem = stem.substr(0, v);
  return *major;
}

// Windows names, compared without case: cudnn_ops64_9.dll, cudnn64_9.lib, cudnn.lib.
std::optional<CudnnFileName> parse_windows(const std::string& lower) {
  bool dll = lower.ends_with(".dll"), lib = lower.ends_with(".lib");
  if (!dll && !lib) return std::nullopt;
  std::string_view stem = std::string_view(lower).substr(0, lower.size() - 4);
  CudnnFileName out;
  out.windows = true;
  out.kind = dll ? CudnnFileKind::kRuntime : CudnnFileKind::kImport;
  size_t pos = stem.rfind("64_");
  if (pos != std::string_view::npos) {
    auto major = major_number(stem.substr(pos + 3));
    if (!major) return std::nullopt;
    out.major = *major;
    stem = stem.substr(0, pos);
  } else if (dll) {
    return std::nullopt;  // every cuDNN DLL carries its major: cudnn64_9.dll
  }
  out.component = component_of(stem);
  if (out.component.empty()) return std::nullopt;
  out.soname = dll;
  return out;
}

// Linux names: libcudnn.so, libcudnn_ops.so.9, libcudnn_ops.so.9.14.0, libcudnn_ops_static_v9.a.
std::optional<CudnnFileName> parse_linux(std::string_view name) {
  if (!name.starts_with("libcudnn")) return std::nullopt;
  CudnnFileName out;
  if (name.ends_with(".a")) {
    std::string_view stem = name.substr(3, name.size() - 5);  // "cudnn_ops_static_v9"
    auto major = strip_v_major(stem);
    if (stem.ends_with("_static")) stem.remove_suffix(7);
    out.kind = CudnnFileKind::kStatic;
    out.major = major;
    out.component = component_of(stem);
    if (out.component.empty()) return std::nullopt;
    return out;
  }
  size_t so = name.find(".so");
  if (so == std::string_view::npos) return std::nullopt;
  out.component = component_of(name.substr(3, so - 3));
  if (out.component.empty()) return std::nullopt;
  std::string_view rest = name.substr(so + 3);  // "", ".9", ".9.14.0"
  if (rest.empty()) {
    out.kind = CudnnFileKind::kDevLink;
    out.dev_link = true;
    return out;
  }
  if (rest[0] != '.') return std::nullopt;  // libcudnn.so~ or libcudnn.sox
  auto version = Version::parse(rest.substr(1));
  if (!version || version->major() > 9999) return std::nullopt;
  out.major = version->major();
  if (version->parts.size() >= 2) out.version = *version;
  out.soname = version->parts.size() == 1;
  return out;
}

// Headers: cudnn.h, cudnn_version.h, cudnn_ops_v9.h, cudnn_adv_infer.h (8.x only).
std::optional<CudnnFileName> parse_header(std::string_view name) {
  std::string_view stem = name.substr(0, name.size() - 2);
  CudnnFileName out;
  out.kind = CudnnFileKind::kHeader;
  out.major = strip_v_major(stem);
  out.component = component_of(stem);
  if (out.component.empty()) return std::nullopt;
  // The infer/train split of the headers existed only in cuDNN 8.
  if (out.major == 0 && (out.component.ends_with("_infer") || out.component.ends_with("_train"))) out.major = 8;
  return out;
}

}  // namespace

std::optional<CudnnFileName> parse_cudnn_file_name(std::string_view file_name) {
  // Hand-written rather than std::regex: this runs on every file of every candidate directory,
  // and most of them (libc.so.6, ...) are told apart before any copy is made.
  if (!icontains(file_name, "cudnn")) return std::nullopt;
  std::string lower = ascii_lower(file_name);
  if (lower.ends_with(".h")) return parse_header(lower);  // Windows compares without case
  if (lower.starts_with("cudnn")) return parse_windows(lower);
  return parse_linux(file_name);
}

bool is_library_file_name(std::string_view name, bool windows, bool link_time) {
  if (windows) return iends_with(name, link_time ? ".lib" : ".dll");
  return istarts_with(name, "lib") && (icontains(name, ".so") || iends_with(name, ".a"));
}

std::optional<CudnnFileName> parse_cudnn_library_name(std::string_view file_name) {
  auto name = parse_cudnn_file_name(file_name);
  if (!name || (name->kind != CudnnFileKind::kRuntime && name->kind != CudnnFileKind::kDevLink)) return std::nullopt;
  return name;
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
  return CudnnDistInfo{*checked_int(rest.substr(0, dash)), *version};
}

std::string cudnn_library_file_name(const std::string& component, int major, bool windows) {
  std::string base = component == "cudnn" ? "cudnn" : "cudnn_" + component;
  if (windows) return base + "64_" + std::to_string(major) + ".dll";
  return "lib" + base + ".so." + std::to_string(major);
}

std::vector<std::string> cudnn_sublibrary_names_tried(const std::string& component, const std::optional<Version>& version,
                                                       int major) {
  std::string base = "libcudnn_" + component + ".so";
  std::vector<std::string> names;
  if (version) {
    const Version& v = *version;
    names.push_back(base + "." + std::to_string(v.at(0)) + "." + std::to_string(v.at(1)) + "." + std::to_string(v.at(2)));
    names.push_back(base + "." + std::to_string(v.at(0)) + "." + std::to_string(v.at(1)));
  }
  names.push_back(base + "." + std::to_string(major));
  names.push_back(base);
  return names;
}

std::string cudnn_dev_link_name(const std::string& component) {
  return "lib" + std::string(component == "cudnn" ? "cudnn" : "cudnn_" + component) + ".so";
}

std::vector<std::string> cudnn_version_header_names(int major) {
  if (major <= 0) return {"cudnn_version.h", "cudnn_version_v9.h", "cudnn_version_v8.h", "cudnn.h"};
  std::string m = std::to_string(major);
  return {"cudnn_version_v" + m + ".h", "cudnn_version.h", "cudnn_v" + m + ".h", "cudnn.h"};
}

std::string cudnn_shim_pattern(bool windows) { return windows ? "cudnn64_N.dll" : "libcudnn.so.N"; }

std::string cudnn_library_glob(int major, bool windows) {
  return windows ? "cudnn*64_" + std::to_string(major) + ".dll" : "libcudnn*.so." + std::to_string(major);
}

std::optional<int> parse_cudnn_shorthand(std::string_view text) {
  constexpr int kDefaultMajor = 9;
  if (text.starts_with("libcudnn")) text.remove_prefix(3);
  if (text.starts_with("cudnn")) text.remove_prefix(5);
  if (text.empty()) return kDefaultMajor;
  return major_number(text);
}

std::optional<CudnnDebPackage> parse_cudnn_deb_list_name(std::string_view name) {
  if (!name.ends_with(".list") || !name.starts_with("libcudnn")) return std::nullopt;
  std::string_view stem = name.substr(0, name.size() - 5);
  if (size_t colon = stem.find(':'); colon != std::string_view::npos) {  // ":amd64"
    std::string_view arch = stem.substr(colon + 1);
    if (arch.empty() || !valid_component(arch)) return std::nullopt;
    stem = stem.substr(0, colon);
  }
  CudnnDebPackage out;
  out.package = std::string(stem);
  std::string_view rest = stem.substr(8);  // "9-cuda-13", "8"
  size_t dash = rest.find("-cuda-");
  auto major = major_number(rest.substr(0, dash));
  if (!major) return std::nullopt;
  out.major = *major;
  if (dash != std::string_view::npos) {
    auto cuda = major_number(rest.substr(dash + 6));
    if (!cuda) return std::nullopt;
    out.cuda_major = *cuda;
  }
  return out;
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
