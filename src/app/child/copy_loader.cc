#include "app/child/copy_loader.h"

#include "adapters/cuda_driver_api.h"
#include "binfmt/elf.h"
#include "base/paths.h"
#include "facts/driver_libraries.h"
#include "gpu/verify_locate.h"
#include "platform/loaded_modules.h"

namespace cudnnup {

namespace {

std::vector<std::string> elf_problems(const FileSystem& fs, const std::string& path) {
  auto info = fs.stat(path);
  if (!info) return {info.error().message};
  auto parsed = parse_elf([&](uint64_t off, size_t n) { return fs.read_range(path, off, n); }, info->size);
  if (!parsed) return {parsed.error().message};
  return parsed->problems;
}

LibraryLoad try_load(const FileSystem& fs, bool windows, const std::string& component, const std::string& path,
                     const std::function<void(const std::string&)>& before_load) {
  LibraryLoad l;
  l.component = component;
  l.path = path;
  l.present = fs.exists(path);
  if (!l.present) return l;
  if (auto real = fs.canonical(path)) l.real_path = *real;
  // Check the ELF first: the loader maps a truncated file and dies with SIGBUS touching the
  // missing pages, so a damaged file is reported from its headers instead of loaded.
  if (!windows) l.elf_problems = elf_problems(fs, path);  // DLLs are PE files: the loader checks them
  if (!l.elf_problems.empty()) {
    l.error = "not loaded: " + l.elf_problems.front();
    return l;
  }
  if (before_load) before_load(path);
  auto lib = DynamicLibrary::open(path);
  if (lib) {
    l.loaded = true;
    lib->leak();  // unloading cuDNN at exit has crashed in the field; the process ends anyway
  } else {
    l.error = lib.error().message;
  }
  return l;
}

}  // namespace

LoadedCopy load_copy(const AppContext& ctx, const std::string& path,
                     const std::function<void(const std::string&)>& before_load) {
  LoadedCopy out;
  const FileSystem& fs = *ctx.fs;
  const bool windows = ctx.env.windows();
  auto loc = locate_copy(fs, path, windows);
  LibrarySetFacts& lf = out.facts;
  if (!loc) {
    out.locate_error = loc.error().message;
    lf.shim.path = path;
    return out;
  }
  out.located = true;
  lf.lib_dir = loc->lib_dir;
  lf.major = loc->major;
  for (const auto& file : loc->sublibrary_files) {
    std::string name(paths::basename(file));
    lf.sublibraries.push_back(try_load(fs, windows, sublibrary_component(name), file, before_load));
  }
  lf.shim = try_load(fs, windows, "cudnn", loc->shim, before_load);
  if (lf.shim.loaded) {
    auto loaded = CudnnApi::load(loc->shim);
    if (loaded) {
      out.api.emplace(std::move(loaded.value()));
      out.api->leak();
      const auto& fn = out.api->functions();
      if (fn.GetVersion) lf.version = decode_cudnn_version_number(static_cast<long long>(fn.GetVersion()));
      if (lf.version.known()) lf.major = lf.version.major();
      std::pair<const char*, nv::cudnnVersionCheck_t> checks[] = {{"cudnnGraphVersionCheck", fn.GraphVersionCheck},
                                                                   {"cudnnOpsVersionCheck", fn.OpsVersionCheck},
                                                                   {"cudnnCnnVersionCheck", fn.CnnVersionCheck},
                                                                   {"cudnnAdvVersionCheck", fn.AdvVersionCheck}};
      for (auto& [name, check] : checks) {
        if (check) lf.version_checks.emplace_back(name, check());
      }
      lf.missing_symbols = out.api->missing_legacy();
      for (const auto& m : out.api->missing_backend()) lf.missing_symbols.push_back(m);
    }
  }
  for (const auto& comp : required_sublibraries(lf.major, lf.version)) {
    bool found = false;
    for (const auto& l : lf.sublibraries) found = found || l.component == comp;
    if (!found) {
      LibraryLoad missing;
      missing.component = comp;
      missing.path = paths::join(lf.lib_dir, cudnn_library_file_name(comp, lf.major, windows));
      lf.sublibraries.push_back(missing);
    }
  }
  // Module paths as the loader recorded them, with their directory resolved, so a copy reached
  // through a link (lib64 -> targets/.../lib) compares equal to its canonical lib_dir.
  for (const auto& m : loaded_module_paths()) {
    auto real_dir = fs.canonical(paths::parent(m));
    lf.loaded_modules.push_back(paths::join(real_dir ? *real_dir : paths::parent(m), paths::basename(m)));
  }
  return out;
}

std::string pick_libcuda(const AppContext& ctx, const std::string& requested) {
  if (!requested.empty()) return requested;
  const std::string name = driver_library_names(ctx.env.windows()).cuda;
  for (const auto& dir : driver_library_dirs(ctx.env)) {
    std::string candidate = paths::join(dir, name);
    if (ctx.fs->is_file(candidate)) return candidate;
  }
  return {};
}

}  // namespace cudnnup
