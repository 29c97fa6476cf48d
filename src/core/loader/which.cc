#include "loader/which.h"

#include <algorithm>

#include "base/paths.h"
#include "facts/cudnn_files.h"
#include "facts/machines.h"

namespace cudnnup {
namespace {

bool is_cudnn_file(const std::string& path) {
  auto name = parse_cudnn_file_name(paths::basename(path));
  return name && !name->windows && (name->kind == CudnnFileKind::kRuntime || name->kind == CudnnFileKind::kDevLink);
}

}  // namespace

std::string normalize_library_name(const std::string& lib) {
  if (auto major = parse_cudnn_shorthand(lib)) return cudnn_library_file_name("cudnn", *major, false);
  return lib;
}

bool is_cudnn_shim_name(const std::string& name) {
  auto parsed = parse_cudnn_library_name(paths::basename(name));
  return parsed && !parsed->windows && parsed->shim() && parsed->major > 0;
}

WhichReport finish_which(const FileSystem& fs, LoaderSimulation& sim, const std::string& lib, int fallback_caller,
                         WhichReport report) {
  report.library = lib;
  // Mapped during start-up (DT_NEEDED / LD_PRELOAD)?
  const Resolution* found = nullptr;
  for (const Resolution& r : sim.log()) {
    if (r.name == lib && r.found) {
      found = &r;
      break;
    }
  }
  if (found) {
    report.resolution = *found;
    report.how_requested = found->kind == "DT_NEEDED" ? "DT_NEEDED of " + found->requester : found->kind;
  } else {
    for (const Resolution& r : sim.log()) {
      if (r.name == lib) {  // requested but not found at start-up: that is the answer
        found = &r;
        break;
      }
    }
    if (found) {
      report.resolution = *found;
      report.how_requested = "DT_NEEDED of " + found->requester;
    } else {
      report.resolution = sim.dlopen(lib, fallback_caller);
      report.how_requested = "dlopen from " + (fallback_caller >= 0 ? sim.objects()[fallback_caller].path : std::string("?"));
      report.notes.push_back(lib + " is not a DT_NEEDED of " + report.target +
                             ": modelled as dlopen(\"" + lib + "\") called from " +
                             (fallback_caller >= 0 ? sim.objects()[fallback_caller].path : std::string("?")));
    }
  }
  return complete_which(fs, sim, std::move(report));
}

WhichReport complete_which(const FileSystem& fs, LoaderSimulation& sim, WhichReport report) {
  if (report.library.empty()) report.library = report.resolution.name;
  // A cuDNN shim, asked for by its SONAME or reached through a path or the libcudnn.so link.
  bool shim = is_cudnn_shim_name(report.library);
  if (!shim && report.resolution.found) {
    int object = sim.find_mapped_file(report.resolution.canonical);
    shim = is_cudnn_shim_name(report.resolution.canonical) ||
           (object >= 0 && is_cudnn_shim_name(sim.objects()[object].elf.soname));
  }
  if (shim && report.resolution.found) {
    report.cudnn = model_cudnn_loading(fs, sim, report.resolution);
    for (const auto& n : report.cudnn->notes) report.notes.push_back(n);
  }
  for (const auto& o : sim.objects()) {
    if (is_cudnn_file(o.path)) report.loaded_cudnn_files.push_back(o.canonical);
  }
  report.loader = sim.system().description;
  for (const auto& n : sim.system().notes) report.notes.push_back(n);
  // Hazards anywhere in this process's searches (the sub-libraries' too), each once.
  for (const Resolution& r : sim.log()) {
    for (const auto& h : r.hazards) {
      if (std::find(report.hazards.begin(), report.hazards.end(), h) == report.hazards.end()) report.hazards.push_back(h);
    }
  }
  for (const auto& n : report.resolution.notes) report.notes.push_back(n);
  // ld.so refuses to start a program (and dlopen fails) when any DT_NEEDED is missing.
  int missing = 0;
  for (const Resolution& r : sim.log()) {
    if (r.kind != "DT_NEEDED" || r.found || r.name == report.library) continue;
    if (++missing <= 3) {
      report.notes.push_back("DT_NEEDED " + r.name + " of " + r.requester + " is not found (" + r.error +
                             "): the real load would fail there");
    }
  }
  if (missing > 3) report.notes.push_back(std::to_string(missing - 3) + " more DT_NEEDED entries are not found");
  return report;
}

WhichReport which_plain_program(const FileSystem& fs, const Environment& env, const std::string& lib) {
  std::string name = normalize_library_name(lib);
  WhichReport report;
  report.target = "a plain program linked with -l" + name.substr(3, name.find(".so") - 3) + " (no RPATH/RUNPATH)";
  report.target_kind = "plain";
  LoaderSystem sys = loader_system_from(fs, env, true, host_machine().elf, &report.problems);
  LoaderSimulation sim(fs, sys);
  ElfInfo program;
  program.is_64bit = true;
  program.machine = host_machine().elf;
  program.needed = {name};
  sim.start_synthetic("(plain program)", program, env.cwd.empty() ? "/" : env.cwd);
  return finish_which(fs, sim, name, 0, std::move(report));
}

Result<WhichReport> which_for_file(const FileSystem& fs, const Environment& env, const std::string& path,
                                   const std::string& lib) {
  std::string name = normalize_library_name(lib);
  auto info = fs.stat(path);
  if (!info) return make_error(ErrorCode::kNotFound, "no such file: " + path + " (give the path to a program or .so)", path);
  if (info->type != FileType::kRegular) {  // a device's size is 0: "empty" would be wrong, reading it could block
    return make_error(ErrorCode::kUsage, path + " is not a regular file (give the path to a program or .so)", path);
  }
  auto elf = parse_elf([&](uint64_t offset, size_t n) { return fs.read_range(path, offset, n); }, info->size);
  if (!elf) {
    return make_error(ErrorCode::kUsage, path + " is not an ELF program or shared object: " + elf.error().message, path);
  }
  WhichReport report;
  report.target = path;
  LoaderSystem sys = loader_system_from(fs, env, elf->is_64bit, elf->machine, &report.problems);
  LoaderSimulation sim(fs, sys);
  constexpr uint16_t kEtExec = 2, kEtDyn = 3;
  bool is_library = elf->type == kEtDyn && !elf->soname.empty();
  if (elf->type == kEtExec || !is_library) {
    report.target_kind = "executable";
    auto started = sim.start_executable(path);
    if (!started) return started.error();
    return finish_which(fs, sim, name, 0, std::move(report));
  }
  report.target_kind = "library";
  ElfInfo host;
  host.is_64bit = elf->is_64bit;
  host.machine = elf->machine;
  sim.start_synthetic("(a program that dlopen()s " + path + ")", host, env.cwd.empty() ? "/" : env.cwd);
  Resolution self = sim.dlopen(path, 0);
  if (!self.found) {
    report.problems.push_back(self.error);
    report.resolution = self;
    return report;
  }
  int caller = -1;
  for (size_t i = 0; i < sim.objects().size(); ++i) {
    if (sim.objects()[i].canonical == self.canonical) caller = static_cast<int>(i);
  }
  return finish_which(fs, sim, name, caller, std::move(report));
}

}  // namespace cudnnup
