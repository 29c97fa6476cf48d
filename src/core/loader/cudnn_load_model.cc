#include "loader/cudnn_load_model.h"

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

}  // namespace

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

CudnnLoad model_cudnn_loading(const FileSystem& fs, LoaderSimulation& sim, const Resolution& shim) {
  CudnnLoad load;
  load.shim = shim;
  if (!shim.found) return load;
  load.shim_version = cudnn_copy_version(fs, shim.path, &load.version_source);
  int major = 0;
  if (load.shim_version) {
    major = load.shim_version->at(0);
  } else {
    auto name = parse_cudnn_library_name(paths::basename(shim.path));
    if (name && name->component == "cudnn") major = name->major;
    load.notes.push_back("the version of " + shim.canonical +
                         " is unknown (no versioned file name, cudnn_version.h or dist-info): only the major-named "
                         "sub-library files were modelled; cuDNN first asks for fully versioned names");
  }
  int shim_object = -1;
  for (size_t i = 0; i < sim.objects().size(); ++i) {
    if (sim.objects()[i].canonical == shim.canonical) shim_object = static_cast<int>(i);
  }
  if (shim_object < 0) {
    load.notes.push_back("the shim is not mapped in this process model; sub-libraries were not modelled");
    return load;
  }
  std::string shim_dir = paths::parent(shim.canonical);
  std::map<std::string, int> component_object;
  for (const CudnnLoadStep& step : cudnn_load_steps(load.shim_version ? *load.shim_version : Version{major})) {
    CudnnSubLibrary sub;
    sub.component = step.component;
    int caller = step.loaded_by.empty() ? shim_object : (component_object.count(step.loaded_by) ? component_object[step.loaded_by] : -1);
    if (caller < 0) continue;  // its loader did not load
    sub.requested_by = sim.objects()[caller].path;
    for (const std::string& name : cudnn_sublibrary_names_tried(step.component, load.shim_version, major)) {
      sub.names_tried.push_back(name);
      sub.resolution = sim.dlopen(name, caller);
      if (sub.resolution.found) break;
    }
    if (sub.resolution.found) {
      component_object[step.component] = sim.find_loaded(sub.resolution.name);
      sub.from_other_copy = paths::parent(sub.resolution.canonical) != shim_dir;
      if (sub.from_other_copy) load.mixed = true;
    }
    load.sub_libraries.push_back(std::move(sub));
  }
  return load;
}

}  // namespace cudnnup
