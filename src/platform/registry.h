// Reading the Windows registry: what the CUDA installer records
// (HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA\v<X.Y>, value InstallDir) and the
// persistent PATH (HKCU\Environment and
// HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment, value Path), which doctor
// compares with the PATH of the running session. On other systems every call returns
// kUnsupported. The only writes are the user's own environment (HKCU) for
// `cudnnup env --persist`.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

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

// Writes a string value, creating the key when missing: REG_EXPAND_SZ when `expandable`, else
// REG_SZ. The whole value is written as given (no length limit other than the registry's).
Status write_registry_string(RegistryHive hive, const std::string& key, const std::string& name,
                             const std::string& value, bool expandable);

// Removes a value; removing a value that does not exist succeeds.
Status delete_registry_value(RegistryHive hive, const std::string& key, const std::string& name);

// Tells running programs (Explorer, new terminals it starts) that the environment in the
// registry changed: WM_SETTINGCHANGE with "Environment" to every top-level window,
// SendMessageTimeoutW with SMTO_ABORTIFHUNG, so one hung window cannot block us.
// Programs already running keep their own copy of PATH whatever they are told.
Status broadcast_environment_change(unsigned timeout_ms = 5000);

// "HKLM" / "HKCU", for messages.
const char* registry_hive_name(RegistryHive hive);

}  // namespace cudnnup
