#include "platform/registry.h"

namespace cudnnup {

const char* registry_hive_name(RegistryHive hive) { return hive == RegistryHive::kLocalMachine ? "HKLM" : "HKCU"; }

Result<RegistryString> read_registry_string(RegistryHive, const std::string& key, const std::string&) {
  return make_error(ErrorCode::kUnsupported, "the Windows registry does not exist on this system", key);
}

Result<std::vector<std::string>> list_registry_subkeys(RegistryHive, const std::string& key) {
  return make_error(ErrorCode::kUnsupported, "the Windows registry does not exist on this system", key);
}

Status write_registry_string(RegistryHive, const std::string& key, const std::string&, const std::string&, bool) {
  return make_error(ErrorCode::kUnsupported, "writing the registry is Windows only; this system has no registry", key);
}

Status delete_registry_value(RegistryHive, const std::string& key, const std::string&) {
  return make_error(ErrorCode::kUnsupported, "writing the registry is Windows only; this system has no registry", key);
}

Status broadcast_environment_change(unsigned) {
  return make_error(ErrorCode::kUnsupported, "WM_SETTINGCHANGE is Windows only");
}

}  // namespace cudnnup
