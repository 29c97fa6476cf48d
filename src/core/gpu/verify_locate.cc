#include "gpu/verify_locate.h"

#include <algorithm>

#include "base/paths.h"
#include "facts/cudnn_files.h"
#include "facts/machines.h"

namespace cudnnup {

namespace {

// The shim's major from its file name, or 0: libcudnn.so.9 -> 9, cudnn64_8.dll -> 8.
int shim_major(const std::string& name, bool windows) {
  auto parsed = parse_cudnn_library_name(name);
  return parsed && parsed->windows == windows && parsed->shim() && parsed->soname ? parsed->major : 0;
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
  for (const auto& e : *entries) {
    auto name = parse_cudnn_library_name(e.name);
    if (name && name->windows == windows && !name->shim() && name->soname && name->major == loc.major) {
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
                        p + " is not a cuDNN shim library (expected " + cudnn_shim_pattern(windows) +
                            "); pass the copy's directory instead",
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
                    "no cuDNN library (" + cudnn_shim_pattern(windows) + ") in " + p +
                        " or its lib/, lib64/, bin/ folders; `cudnnup doctor` lists the copies on this machine",
                    p);
}

std::vector<std::string> default_copy_dirs(const Environment& env) {
  std::vector<std::string> out;
  for (const char* var : {"CUDNN_PATH", "CUDNN_HOME", "CUDA_HOME", "CUDA_PATH"}) {
    if (auto v = env.get(var); v && !v->empty()) out.push_back(paths::normalize(*v));
  }
  if (env.windows()) return out;
  for (const std::string& dir : {std::string("/usr/local/cuda/lib64"), "/usr/lib/" + multiarch_triplet_of(env.arch),
                                  std::string("/usr/lib64")}) {
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
  auto name = parse_cudnn_library_name(file_name);
  return name && !name->shim() && name->soname ? name->component : std::string();
}

}  // namespace cudnnup
