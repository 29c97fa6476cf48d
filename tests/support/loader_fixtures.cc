#include "support/loader_fixtures.h"

#include <filesystem>

#include "support/fixture_libs.h"

namespace cudnnup::testing {

std::string loader_fixture(const std::string& rel) {
#ifdef CUDNNUP_FIXTURE_DIR
  return std::string(CUDNNUP_FIXTURE_DIR) + "/loader/" + rel;
#else
  return "loader/" + rel;
#endif
}

const std::vector<std::string>& loader_versions() {
  static const std::vector<std::string> versions = {"9.19.0", "9.19.1", "9.14.0", "9.1.0"};
  return versions;
}

void make_loading_copy(const std::string& version, const std::string& lib_dir, bool header) {
  copy_file(loader_fixture("shim-" + version + "/libcudnn.so.9"), lib_dir + "/libcudnn.so.9");
  for (const auto& c : cudnn9_components()) {
    std::string name = "libcudnn_" + c + ".so.9";
    copy_file(loader_fixture("sub-" + version + "/" + name), lib_dir + "/" + name);
  }
  if (header) {
    int major = std::stoi(version.substr(0, version.find('.')));
    std::string rest = version.substr(version.find('.') + 1);
    int minor = std::stoi(rest.substr(0, rest.find('.')));
    int patch = std::stoi(rest.substr(rest.find('.') + 1));
    write_text(std::filesystem::path(lib_dir).parent_path().generic_string() + "/include/cudnn_version.h",
               cudnn_version_header(major, minor, patch));
  }
}

}  // namespace cudnnup::testing
