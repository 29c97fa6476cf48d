#include "gpu/verify_locate.h"

#include <algorithm>
#include <regex>

#include "base/paths.h"

namespace cudnnup {

namespace {

// The shim's major from its file name, or 0: libcudnn.so.9 -> 9, cudnn64_8.dll -> 8.
int shim_major(const std::string& name, bool windows) {
  static const std::regex posix(R"(^libcudnn\.so\.(\d+)$)");
  static const std::regex win(R"(^cudnn64_(\d+)\.dll$)", std::regex::icase);
  std::smatch m;
  if (std::regex_match(name, m, windows ? win : posix)) return std::stoi(m[1].str());
  return 0;
}

Result<CopyLocation> scan_dir(const FileSystem& fs, const std::string& dir, bool windows) {
  auto entries = fs.list_dir(dir);
  if (!entries) return entries.error();
  CopyLocation loc;
  for (const auto& e : *entries) {
    int m = shim_major(e.name, windows);
    if (m > loc.major) {
      loc.major = m;
      loc.shim = paths::join(dir, e.name);
    }
  }
  if (!loc.major) return make_error(ErrorCode::kNotFound, "no cuDNN library in " + dir, dir);
  auto canonical = fs.canonical(dir);
  loc.lib_dir = canonical ? *canonical : dir;
  loc.shim = paths::join(loc.lib_dir, paths::basename(loc.shim));
  const std::string suffix = windows ? "64_" + std::to_string(loc.major) + ".dll" : ".so." + std::to_string(loc.major);
  for (const auto& e : *entries) {
    bool sub = windows ? (e.name.rfind("cudnn_", 0) == 0) : (e.name.rfind("libcudnn_", 0) == 0);
    if (sub && e.name.size() > suffix.size() &&
        e.name.compare(e.name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      loc.sublibrary_files.push_back(paths::join(loc.lib_dir, e.name));
    }
  }
  std::sort(loc.sublibrary_files.begin(), loc.sublibrary_files.end());
  return loc;
}

}  // namespace

Result<CopyLocation> locate_copy(const FileSystem& fs, const std::string& path, bool windows) {
  std::string p = paths::normalize(path);
  if (fs.is_file(p)) {
    if (!shim_major(std::string(paths::basename(p)), windows)) {
      return make_error(ErrorCode::kUsage,
                        p + " is not a cuDNN shim library (expected " +
                            (windows ? "cudnn64_N.dll" : "libcudnn.so.N") + "); pass the copy's directory instead",
                        p);
    }
    p = paths::parent(p);
  }
  if (!fs.is_dir(p)) return make_error(ErrorCode::kNotFound, p + " does not exist or is not a directory", p);
  std::vector<std::string> tries = {p};
  for (const char* sub : {"lib", "lib64", "lib/x64", "bin", "bin/x64", "targets/x86_64-linux/lib"}) {
    tries.push_back(paths::join(p, sub));
  }
  for (const auto& dir : tries) {
    if (!fs.is_dir(dir)) continue;
    auto loc = scan_dir(fs, dir, windows);
    if (loc) return loc;
  }
  return make_error(ErrorCode::kNotFound,
                    "no cuDNN library (" + std::string(windows ? "cudnn64_N.dll" : "libcudnn.so.N") + ") in " + p +
                        " or its lib/, lib64/, bin/ folders; `cudnnup doctor` lists the copies on this machine",
                    p);
}

std::vector<std::string> default_copy_dirs(const Environment& env) {
  std::vector<std::string> out;
  for (const char* var : {"CUDNN_PATH", "CUDNN_HOME", "CUDA_HOME", "CUDA_PATH"}) {
    if (auto v = env.get(var); v && !v->empty()) out.push_back(paths::normalize(*v));
  }
  if (env.windows()) return out;
  for (const char* dir : {"/usr/local/cuda/lib64", "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib/aarch64-linux-gnu"}) {
    out.push_back(dir);
  }
  return out;
}

std::string find_nvcc(const FileSystem& fs, const Environment& env) {
  const std::string exe = env.windows() ? "nvcc.exe" : "nvcc";
  std::vector<std::string> dirs;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (auto v = env.get(var); v && !v->empty()) dirs.push_back(paths::join(paths::normalize(*v), "bin"));
  }
  for (const auto& d : env.get_list("PATH")) {
    if (!d.empty()) dirs.push_back(paths::normalize(d));
  }
  if (!env.windows()) dirs.push_back("/usr/local/cuda/bin");
  for (const auto& d : dirs) {
    std::string candidate = paths::join(d, exe);
    if (fs.is_file(candidate)) return candidate;
  }
  return {};
}

std::string sublibrary_component(const std::string& file_name) {
  static const std::regex posix(R"(^libcudnn_(.+)\.so\.\d+$)");
  static const std::regex win(R"(^cudnn_(.+)64_\d+\.dll$)", std::regex::icase);
  std::smatch m;
  if (std::regex_match(file_name, m, posix) || std::regex_match(file_name, m, win)) return m[1].str();
  return {};
}

}  // namespace cudnnup
