#include "install/toolkit_target.h"

#include <algorithm>
#include <regex>

#include "facts/cudnn_files.h"
#include "base/paths.h"

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
  if (auto text = fs.read_file(t.root + "/include/cuda.h", 1 << 20); text && std::regex_search(*text, m, cuda_h)) {
    t.cuda_version = decode_cuda_version_number(std::stoll(m[1].str()));
    t.version_source = "include/cuda.h";
  } else if (auto json = fs.read_file(t.root + "/version.json", 1 << 20); json && std::regex_search(*json, m, version_json)) {
    t.cuda_version = *Version::parse(m[1].str());
    t.version_source = "version.json";
  } else if (auto txt = fs.read_file(t.root + "/version.txt", 4096); txt && std::regex_search(*txt, m, version_txt)) {
    t.cuda_version = *Version::parse(m[1].str());
    t.version_source = "version.txt";
  }
  return t;
}

std::vector<std::string> find_toolkit_cudnn_files(const FileSystem& fs, const ToolkitTarget& t) {
  std::vector<std::string> out;
  auto scan = [&](const std::string& dir, const std::regex& re) {
    auto entries = fs.list_dir(t.root + "/" + dir);
    if (!entries) return;
    for (const auto& e : *entries) {
      if (e.type == FileType::kDirectory) continue;
      if (std::regex_match(e.name, re)) out.push_back(t.root + "/" + dir + "/" + e.name);
    }
  };
  scan("include", std::regex(R"(^cudnn.*\.h$)"));
  if (t.windows) {
    scan("bin", std::regex(R"(^cudnn.*\.dll$)", std::regex::icase));
    scan("bin/x64", std::regex(R"(^cudnn.*\.dll$)", std::regex::icase));
    scan("lib/x64", std::regex(R"(^cudnn.*\.lib$)", std::regex::icase));
  } else {
    scan(t.lib_dir, std::regex(R"(^libcudnn.*\.(so.*|a)$)"));
  }
  std::sort(out.begin(), out.end());
  return out;
}

int cudnn_major_of_file(const FileSystem& fs, const std::string& path) {
  std::string base(paths::basename(path));
  static const std::regex so(R"(^libcudnn.*\.so\.(\d+).*$)");
  static const std::regex dll(R"(^cudnn.*64_(\d+)\.(dll|lib)$)", std::regex::icase);
  static const std::regex versioned_header(R"(^cudnn.*_v(\d+)\.h$)");
  static const std::regex v8_header(R"(^cudnn_(ops|cnn|adv)_(infer|train)\.h$)");
  std::smatch m;
  if (std::regex_match(base, m, so) || std::regex_match(base, m, dll) || std::regex_match(base, m, versioned_header)) {
    return std::stoi(m[1].str());
  }
  if (std::regex_match(base, v8_header)) return 8;
  if (base == "cudnn_version.h" || base == "cudnn.h") {
    if (auto text = fs.read_file(path, 1 << 20)) {
      if (auto v = parse_cudnn_header_version(*text)) return v->version.major();
    }
  }
  return 0;
}

}  // namespace cudnnup
