#include "app/child/copy_loader.h"

#include <algorithm>

#include "adapters/cuda_driver_api.h"
#include "binfmt/elf.h"
#include "base/paths.h"
#include "facts/cudnn_components.h"
#include "facts/driver_libraries.h"
#include "gpu/verify_locate.h"
#include "platform/loaded_modules.h"

namespace cudnnup {

namespace {

using Note = std::function<void(const std::string&)>;

// What is known about a file before anything is loaded; `needed` gets its DT_NEEDED names.
LibraryLoad inspect(const FileSystem& fs, bool windows, const std::string& component, const std::string& path,
                    std::vector<std::string>* needed) {
  LibraryLoad l;
  l.component = component;
  l.path = path;
  l.present = fs.exists(path);
  if (!l.present) return l;
  if (auto real = fs.canonical(path)) l.real_path = *real;
  if (windows) return l;  // DLLs are PE files: the loader checks them
  auto info = fs.stat(path);
  auto parsed = info ? parse_elf([&](uint64_t off, size_t n) { return fs.read_range(path, off, n); }, info->size)
                     : Result<ElfInfo>(info.error());
  if (!parsed) {
    l.elf_problems = {parsed.error().message};
  } else {
    l.elf_problems = parsed->problems;
    *needed = parsed->needed;
  }
  if (!l.elf_problems.empty()) l.error = "not loaded: " + l.elf_problems.front();
  return l;
}

void load_by_path(LibraryLoad& l, const Note& note) {
  if (!l.present || !l.elf_problems.empty() || !l.error.empty()) return;
  if (note) note("loading " + l.path);
  auto lib = DynamicLibrary::open(l.path);
  if (lib) {
    l.loaded = true;
    lib->leak();  // unloading cuDNN at exit has crashed in the field; the process ends anyway
  } else {
    l.error = lib.error().message;
  }
}

// The shim, its API and its version checks; the checks make the shim load its sub-libraries.
// `damaged`: components whose file must not reach the loader: no version check then, and no
// cudnnGetVersion when it is the library that call is forwarded to (9.x graph, 8.x ops_infer).
void load_shim(LoadedCopy& out, const std::vector<std::string>& damaged, const Note& note) {
  LibrarySetFacts& lf = out.facts;
  load_by_path(lf.shim, note);
  if (!lf.shim.loaded) return;
  auto loaded = CudnnApi::load(lf.shim.path, lf.major);
  if (!loaded) return;
  out.api.emplace(std::move(loaded.value()));
  out.api->leak();
  lf.missing_symbols = out.api->missing();
  auto is_damaged = [&](const char* component) {
    return std::find(damaged.begin(), damaged.end(), component) != damaged.end();
  };
  if (damaged.empty()) {
    for (const auto& [name, check] : out.api->version_checks()) {
      if (note) note("calling " + name + " (the shim loads its sub-libraries)");
      lf.version_checks.emplace_back(name, check());
    }
  }
  const auto& fn = out.api->functions();
  if (fn.GetVersion && !is_damaged(kCudnnGraphComponent) && !is_damaged(kCudnn8VersionComponent)) {
    if (note) note("calling cudnnGetVersion");
    lf.version = decode_cudnn_version_number(static_cast<long long>(fn.GetVersion()));
  }
  if (lf.version.known()) lf.major = lf.version.major();
}

}  // namespace

LoadedCopy load_copy(const AppContext& ctx, const std::string& path, const Note& note) {
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
  lf.windows = windows;
  std::vector<std::string> damaged, damaged_names;
  std::vector<std::vector<std::string>> needed(loc->sublibrary_files.size());
  for (size_t i = 0; i < loc->sublibrary_files.size(); ++i) {
    const std::string& file = loc->sublibrary_files[i];
    std::string name(paths::basename(file));
    lf.sublibraries.push_back(inspect(fs, windows, sublibrary_component(name), file, &needed[i]));
    if (lf.sublibraries.back().elf_problems.empty()) continue;
    damaged.push_back(lf.sublibraries.back().component);
    damaged_names.push_back(name);
  }
  // Nor through another sub-library's DT_NEEDED.
  for (size_t i = 0; i < lf.sublibraries.size(); ++i) {
    for (const auto& n : needed[i]) {
      if (std::find(damaged_names.begin(), damaged_names.end(), n) != damaged_names.end() && lf.sublibraries[i].error.empty()) {
        lf.sublibraries[i].error = "not loaded: it needs " + n + ", which is damaged";
      }
    }
  }
  std::vector<std::string> shim_needed;
  lf.shim = inspect(fs, windows, "cudnn", loc->shim, &shim_needed);
  // A damaged sub-library is not handed to the loader at all, not even through the shim.
  load_shim(out, damaged, note);
  for (auto& l : lf.sublibraries) load_by_path(l, note);
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
  lf.loaded_modules = loaded_module_paths();
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
