#include "loader/cudnn_load_model.h"

#include <algorithm>
#include <map>

#include "base/paths.h"
#include "facts/cudnn_components.h"
#include "facts/cudnn_files.h"

namespace cudnnup {
namespace {

std::optional<Version> version_from_header(const std::string& text) {
  auto parsed = parse_cudnn_header_version(text);
  if (!parsed) return std::nullopt;
  return parsed->version;
}

std::string component_of(const MappedObject& o) {
  std::string name = o.elf.soname.empty() ? std::string(paths::basename(o.path)) : o.elf.soname;
  auto parsed = parse_cudnn_library_name(name);
  return parsed && !parsed->windows ? parsed->component : "";
}

std::string version_text(const std::optional<Version>& v) { return v ? v->str() : "unknown"; }

// The references of sub-library `object` to other cuDNN libraries (its cuDNN DT_NEEDED
// entries), and what each binds to.
std::vector<CudnnBinding> bindings_of(const FileSystem& fs, const LoaderSimulation& sim, int object, int major) {
  std::vector<CudnnBinding> out;
  const MappedObject& o = sim.objects()[object];
  std::string component = component_of(o);
  for (size_t i = 0; i < o.elf.needed.size(); ++i) {
    auto parsed = parse_cudnn_library_name(o.elf.needed[i]);
    if (!parsed || parsed->windows || parsed->shim()) continue;
    CudnnBinding b;
    b.dependency = parsed->component;
    b.checked = cudnn_checks_version_of(major, component, b.dependency);
    int provider = sim.symbol_provider(object, [&](const MappedObject& m) { return component_of(m) == b.dependency; });
    if (provider < 0 && i < o.needed.size()) provider = o.needed[i];
    if (provider < 0) {
      b.how = "its DT_NEEDED " + o.elf.needed[i] + " is not found";
      out.push_back(b);
      continue;
    }
    const MappedObject& p = sim.objects()[provider];
    b.file = p.canonical;
    b.version = cudnn_file_version(fs, p.canonical, nullptr);
    b.from_other_copy = paths::parent(p.canonical) != paths::parent(o.canonical);
    bool via_needed = i < o.needed.size() && o.needed[i] == provider;
    b.how = p.global && provider != object ? "the global scope (" + p.how + ")"
                                           : "its DT_NEEDED " + o.elf.needed[i];
    if (p.global && via_needed) b.how = "its DT_NEEDED " + o.elf.needed[i] + ", already in the process (" + p.how + ")";
    out.push_back(b);
  }
  return out;
}

}  // namespace

void judge_cudnn_versions(CudnnLoad& load) {
  bool unknown = false, fails = false;
  for (const CudnnSubLibrary& s : load.sub_libraries) {
    std::string lib = std::string(paths::basename(s.resolution.canonical));
    for (const CudnnBinding& b : s.bindings) {
      if (b.file.empty()) continue;
      std::string pair = lib + " " + version_text(s.version) + " binds " + std::string(paths::basename(b.file)) + " " +
                         version_text(b.version) + " (" + b.file + ")";
      bool same = s.version && b.version && s.version->truncated(3) == b.version->truncated(3);
      if (b.checked) {
        if (!s.version || !b.version) {
          unknown = true;
          load.check_detail.push_back(pair + ": cuDNN compares these, a version is unknown");
        } else if (!same) {
          fails = true;
          load.check_detail.push_back(pair + ": cuDNN's check fails (CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH on the "
                                      "first call into " + s.component + ")");
        }
      } else if (s.version && b.version && !same) {
        load.notes.push_back(pair + ": cuDNN does not compare these; a different version is not guaranteed to work");
      }
    }
  }
  load.check = fails ? CudnnCheck::kFails : unknown ? CudnnCheck::kUnknown : CudnnCheck::kPasses;
}

const char* cudnn_check_name(CudnnCheck check) {
  switch (check) {
    case CudnnCheck::kPasses: return "passes";
    case CudnnCheck::kFails: return "fails";
    case CudnnCheck::kUnknown: return "unknown";
  }
  return "?";
}

std::optional<Version> cudnn_copy_version(const FileSystem& fs, const std::string& shim_path, std::string* source) {
  auto set = [&](const std::string& s) {
    if (source) *source = s;
  };
  auto canon = fs.canonical(shim_path);
  std::string real = canon ? *canon : shim_path;
  auto name = parse_cudnn_library_name(paths::basename(real));
  if (name && !name->windows && name->version.parts.size() >= 3) {
    set("file name " + real);
    return name->version.truncated(3);
  }
  std::string dir = paths::parent(real);
  // Toolkit and archive layouts keep include/ next to lib/; Debian packages put the headers in
  // /usr/include/<triplet>/ for libraries in /usr/lib/<triplet>/.
  std::string triplet(paths::basename(dir));
  std::vector<std::string> candidates;
  for (const std::string& include : {std::string("../include"), "../../include/" + triplet}) {
    for (const std::string& name : cudnn_version_header_names(0)) {
      if (name != "cudnn.h") candidates.push_back(include + "/" + name);  // 8.x and 9.x: cudnn_version*.h
    }
  }
  for (const std::string& rel : candidates) {
    std::string header = paths::normalize(paths::join(dir, rel));
    if (auto text = fs.read_file(header, 1 << 20)) {
      if (auto v = version_from_header(*text)) {
        set(header);
        return v;
      }
    }
  }
  // pip: <site-packages>/nvidia/cudnn/lib -> <site-packages>/nvidia_cudnn_cu*-X.dist-info
  std::string site = paths::parent(paths::parent(paths::parent(dir)));
  if (paths::basename(paths::parent(dir)) == "cudnn" && paths::basename(paths::parent(paths::parent(dir))) == "nvidia") {
    if (auto entries = fs.list_dir(site)) {
      for (const auto& e : *entries) {
        auto dist = parse_cudnn_dist_info(e.name);
        if (dist && dist->version.parts.size() >= 3) {
          set(paths::join(site, e.name));
          return dist->version.truncated(3);
        }
      }
    }
  }
  return std::nullopt;
}

std::optional<Version> cudnn_file_version(const FileSystem& fs, const std::string& path, std::string* source) {
  auto canon = fs.canonical(path);
  std::string real = canon ? *canon : path;
  auto name = parse_cudnn_library_name(paths::basename(real));
  if (name && !name->windows && name->version.parts.size() >= 3) {
    if (source) *source = "file name " + real;
    return name->version.truncated(3);
  }
  return cudnn_copy_version(fs, real, source);
}

CudnnLoad model_cudnn_loading(const FileSystem& fs, LoaderSimulation& sim, const Resolution& shim) {
  CudnnLoad load;
  load.shim = shim;
  if (!shim.found) return load;
  load.shim_version = cudnn_copy_version(fs, shim.path, &load.version_source);
  int shim_object = sim.find_mapped_file(shim.canonical);
  if (shim_object < 0) {
    load.notes.push_back("the shim is not mapped in this process model; sub-libraries were not modelled");
    return load;
  }
  int major = 0;
  if (load.shim_version) {
    major = load.shim_version->at(0);
  } else {
    for (const std::string& n : {shim.path, shim.canonical, sim.objects()[shim_object].elf.soname}) {
      auto name = parse_cudnn_library_name(paths::basename(n));
      if (major == 0 && name && name->shim()) major = name->major;
    }
    load.notes.push_back("the version of " + shim.canonical +
                         " is unknown (no versioned file name, cudnn_version.h or dist-info): only the major-named "
                         "sub-library files were modelled; cuDNN first asks for fully versioned names");
  }
  std::string shim_dir = paths::parent(shim.canonical);
  std::map<std::string, int> component_object;
  // Each library asks for the names of its own build: the shim for graph, ops, cnn and adv, the
  // graph library that loaded (which may be another copy's, of another version) for the engines
  // and heuristic ("libcudnn_heuristic.so.<graph's M.m.p>" first).
  std::map<std::string, std::optional<Version>> component_version;
  for (const CudnnLoadStep& step : cudnn_load_steps(load.shim_version ? *load.shim_version : Version{major})) {
    CudnnSubLibrary sub;
    sub.component = step.component;
    int caller = step.loaded_by.empty() ? shim_object
                                        : (component_object.count(step.loaded_by) ? component_object[step.loaded_by] : -1);
    if (caller < 0) continue;  // its loader did not load
    sub.requested_by = sim.objects()[caller].path;
    std::optional<Version> caller_version = step.loaded_by.empty() ? load.shim_version : component_version[step.loaded_by];
    if (!caller_version) caller_version = load.shim_version;  // a loader of unknown version: assume the shim's
    int caller_major = caller_version ? caller_version->at(0) : major;
    for (const std::string& name : cudnn_sublibrary_names_tried(step.component, caller_version, caller_major)) {
      sub.names_tried.push_back(name);
      sub.resolution = sim.dlopen(name, caller);
      if (sub.resolution.found) break;  // each name is its own dlopen(): a failure moves on to the next
    }
    if (sub.resolution.found) {
      int object = sim.find_mapped_file(sub.resolution.canonical);
      component_object[step.component] = object;
      sub.from_other_copy = paths::parent(sub.resolution.canonical) != shim_dir;
      sub.version = cudnn_file_version(fs, sub.resolution.canonical, &sub.version_source);
      component_version[step.component] = sub.version;
      if (object >= 0) sub.bindings = bindings_of(fs, sim, object, major);
    }
    load.sub_libraries.push_back(std::move(sub));
  }
  for (const CudnnSubLibrary& s : load.sub_libraries) {
    if (s.from_other_copy) load.mixed = true;
    for (const CudnnBinding& b : s.bindings) {
      if (b.from_other_copy) load.mixed = load.binding_mixed = true;
    }
    if (s.component == kCudnnGraphComponent && s.resolution.found) load.reported_version = s.version;
  }
  // Any other cuDNN library in the process (preloaded, or loaded by someone else) from another
  // directory also makes the process a mix, even when nothing binds to it yet.
  for (const MappedObject& o : sim.objects()) {
    if (component_of(o).empty() || paths::parent(o.canonical) == shim_dir) continue;
    if (!load.mixed) load.notes.push_back(o.canonical + " is also in the process (" + o.how + "), from another copy");
    load.mixed = true;
  }
  if (major == 8) load.reported_version = load.shim_version;
  judge_cudnn_versions(load);
  return load;
}

}  // namespace cudnnup
