#include "facts/cudnn_components.h"

#include <algorithm>

namespace cudnnup {

std::vector<std::string> required_cudnn_components(const Version& release) {
  return builtin_rules().expected_components(release);
}

std::vector<std::string> required_cudnn_sublibraries(const Version& release) {
  std::vector<std::string> out = required_cudnn_components(release);
  out.erase(std::remove(out.begin(), out.end(), "cudnn"), out.end());
  return out;
}

std::vector<std::string> optional_cudnn_sublibraries(const Version& release) {
  std::vector<std::string> required = required_cudnn_components(release);
  std::vector<std::string> out;
  for (const ExpectedLibrary* lib : builtin_rules().known_components(release.major())) {
    if (std::find(required.begin(), required.end(), lib->component) == required.end()) out.push_back(lib->component);
  }
  return out;
}

std::vector<std::string> known_cudnn_components(int major) {
  std::vector<std::string> out;
  for (const ExpectedLibrary* lib : builtin_rules().known_components(major)) out.push_back(lib->component);
  return out;
}

std::vector<CudnnLoadStep> cudnn_load_steps(const Version& release) {
  std::vector<std::string> required = required_cudnn_sublibraries(release);
  std::vector<CudnnLoadStep> out;
  for (const ExpectedLibrary* lib : builtin_rules().known_components(release.major())) {
    if (std::find(required.begin(), required.end(), lib->component) != required.end()) {
      out.push_back({lib->component, lib->loaded_by});
    }
  }
  return out;
}

bool cudnn_checks_version_of(int major, const std::string& component, const std::string& dependency) {
  if (major >= 9) {
    return (component == "ops" && dependency == kCudnnGraphComponent) ||
           ((component == "cnn" || component == "adv") && dependency == "ops");
  }
  return major == 8;
}

}  // namespace cudnnup
