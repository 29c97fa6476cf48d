#include "install/toolkit_target.h"

#include <algorithm>
#include <regex>

#include "facts/cudnn_files.h"
#include "base/paths.h"
#include "base/numbers.h"

namespace cudnnup {

ToolkitTarget inspect_toolkit(const FileSystem& fs, const std::string& root, bool windows) {
  ToolkitTarget t;
  t.root = paths::normalize(root);
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
  return t;
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
