#include "install/toolkit_target.h"

#include <algorithm>
#include <regex>

#include "base/paths.h"
#include "base/relative_path.h"
#include "facts/cudnn_files.h"
#include "install/archive_contents.h"
#include "base/numbers.h"

namespace cudnnup {
namespace {

// The CPU a toolkit is for, from the header of its CUDA runtime library (a cross toolkit such as
// targets/sbsa-linux holds aarch64 libraries on an x86_64 machine).
void read_toolkit_machine(const FileSystem& fs, ToolkitTarget& t) {
  static const std::regex linux_runtime(R"(^libcudart\.so(\.\d+)*$)");
  static const std::regex windows_runtime(R"(^cudart64_\d+\.dll$)", std::regex::icase);
  std::vector<std::string> dirs = t.windows ? std::vector<std::string>{"bin", "bin/x64"} : std::vector<std::string>{t.lib_dir};
  for (const auto& dir : dirs) {
    auto entries = fs.list_dir(t.root + "/" + dir);
    if (!entries) continue;
    for (const auto& e : *entries) {
      if (!std::regex_match(e.name, t.windows ? windows_runtime : linux_runtime)) continue;
      std::string path = t.root + "/" + dir + "/" + e.name;
      auto head = fs.read_file(path, 4096);
      if (!head) continue;
      std::string machine;
      if (sniff_binary(*head, &machine) == BinaryFormat::kNone || machine.empty()) continue;
      t.machine = machine;
      t.machine_source = dir + "/" + e.name;
      return;
    }
  }
}

}  // namespace

ToolkitTarget inspect_toolkit(const FileSystem& fs, const std::string& root, bool windows) {
  ToolkitTarget t;
  auto real = fs.canonical(root);
  t.root = real ? paths::normalize(*real) : paths::normalize(root);
  t.windows = windows;
  if (windows) {
    t.lib_dir = "lib/x64";
  } else {
    t.lib_dir = fs.is_dir(t.root + "/lib64") || !fs.is_dir(t.root + "/lib") ? "lib64" : "lib";
  }
  static const std::regex cuda_h(R"(#\s*define\s+CUDA_VERSION\s+(\d+))");
  static const std::regex version_json(R"re("cuda"\s*:\s*\{[^}]*?"version"\s*:\s*"([0-9.]+)")re");
  static const std::regex version_txt(R"(CUDA Version\s+([0-9.]+))");
  std::smatch m;
  // Each source counts only when it holds a number that fits (a 20-digit CUDA_VERSION is not one).
  if (auto text = fs.read_file(t.root + "/include/cuda.h", 1 << 20); text && std::regex_search(*text, m, cuda_h) &&
      checked_integer(m[1].str(), 0, 999999999)) {
    t.cuda_version = decode_cuda_version_number(*checked_integer(m[1].str(), 0, 999999999));
    t.version_source = "include/cuda.h";
  } else if (auto json = fs.read_file(t.root + "/version.json", 1 << 20); json && std::regex_search(*json, m, version_json) &&
             Version::parse(m[1].str())) {
    t.cuda_version = *Version::parse(m[1].str());
    t.version_source = "version.json";
  } else if (auto txt = fs.read_file(t.root + "/version.txt", 4096); txt && std::regex_search(*txt, m, version_txt) &&
             Version::parse(m[1].str())) {
    t.cuda_version = *Version::parse(m[1].str());
    t.version_source = "version.txt";
  }
  read_toolkit_machine(fs, t);
  return t;
}

std::string real_path_in_toolkit(const FileSystem& fs, const ToolkitTarget& t, const std::string& rel) {
  std::vector<std::string> parts = paths::split_list(rel, '/');
  std::string name = parts.back();
  parts.pop_back();
  // The deepest directory that exists, resolved; the ones below it are created later as written.
  for (size_t k = parts.size() + 1; k-- > 0;) {
    std::string dir = t.root;
    for (size_t i = 0; i < k; ++i) dir += "/" + parts[i];
    if (!fs.is_dir(dir)) continue;
    auto real = fs.canonical(dir);
    if (!real) return {};
    std::string base;
    if (paths::normalize(*real) != t.root) {
      base = relative_below(t.root, *real);
      if (base.empty()) return {};
    }
    for (size_t i = k; i < parts.size(); ++i) base = base.empty() ? parts[i] : base + "/" + parts[i];
    return base.empty() ? name : base + "/" + name;
  }
  return {};
}

std::vector<std::string> find_toolkit_cudnn_files(const FileSystem& fs, const ToolkitTarget& t) {
  std::vector<std::string> out;
  auto scan = [&](const std::string& dir, std::initializer_list<CudnnFileKind> kinds) {
    auto entries = fs.list_dir(t.root + "/" + dir);
    if (!entries) return;
    for (const auto& e : *entries) {
      if (e.type == FileType::kDirectory) continue;
      auto name = parse_cudnn_file_name(e.name);
      if (!name || name->windows != (t.windows && name->kind != CudnnFileKind::kHeader)) continue;
      if (std::find(kinds.begin(), kinds.end(), name->kind) != kinds.end()) out.push_back(t.root + "/" + dir + "/" + e.name);
    }
  };
  scan("include", {CudnnFileKind::kHeader});
  if (t.windows) {
    scan("bin", {CudnnFileKind::kRuntime});
    scan("bin/x64", {CudnnFileKind::kRuntime});
    scan("lib/x64", {CudnnFileKind::kImport});
  } else {
    scan(t.lib_dir, {CudnnFileKind::kRuntime, CudnnFileKind::kDevLink, CudnnFileKind::kStatic});
  }
  std::sort(out.begin(), out.end());
  return out;
}

int cudnn_major_of_file(const FileSystem& fs, const std::string& path) {
  auto name = parse_cudnn_file_name(paths::basename(path));
  if (!name) return 0;
  if (name->major) return name->major;
  if (name->kind == CudnnFileKind::kHeader && (name->component == "version" || name->component == "cudnn")) {
    if (auto text = fs.read_file(path, 1 << 20)) {
      if (auto v = parse_cudnn_header_version(*text)) return v->version.major();
    }
  }
  return 0;
}

}  // namespace cudnnup
