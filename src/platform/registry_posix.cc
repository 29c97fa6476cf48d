#include "platform/registry.h"

namespace cudnnup {

const char* registry_hive_name(RegistryHive hive) { return hive == RegistryHive::kLocalMachine ? "HKLM" : "HKCU"; }

Result<RegistryString> read_registry_string(RegistryHive, const std::string& key, const std::string&) {
  return make_error(ErrorCode::kUnsupported, "the Windows registry does not exist on this system", key);
}

Result<std::vector<std::string>> list_registry_subkeys(RegistryHive, const std::string& key) {
  return make_error(ErrorCode::kUnsupported, "the Windows registry does not exist on this system", key);
}

}  // namespace cudnnup
