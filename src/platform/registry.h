// Reading the Windows registry: what the CUDA installer records
// (HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA\v<X.Y>, value InstallDir) and the
// persistent PATH (HKCU\Environment and
// HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment, value Path), which doctor
// compares with the PATH of the running session. On other systems every call returns
// kUnsupported. Read-only: nothing here changes the registry.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"

namespace cudnnup {

enum class RegistryHive { kLocalMachine, kCurrentUser };

struct RegistryString {
  std::string value;        // UTF-8, as stored (REG_EXPAND_SZ is NOT expanded: see `expandable`)
  bool expandable = false;  // REG_EXPAND_SZ: may hold %VARIABLE% references
};

// `key` uses backslashes, e.g. "SOFTWARE\\NVIDIA Corporation\\GPU Computing Toolkit\\CUDA".
// Always reads the 64-bit view. Errors: kNotFound (no such key or value), kPermission,
// kUnsupported (the value is not REG_SZ/REG_EXPAND_SZ, or not on Windows).
Result<RegistryString> read_registry_string(RegistryHive hive, const std::string& key, const std::string& name);

// The names of the direct subkeys of `key`, in the order the registry returns them.
Result<std::vector<std::string>> list_registry_subkeys(RegistryHive hive, const std::string& key);

// "HKLM" / "HKCU", for messages.
const char* registry_hive_name(RegistryHive hive);

}  // namespace cudnnup
