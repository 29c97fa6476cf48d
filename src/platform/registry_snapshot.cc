// Built on every OS: on POSIX the registry calls return kUnsupported and the snapshot is empty.
#include "platform/registry.h"

namespace cudnnup {

WindowsRegistrySnapshot read_windows_registry_snapshot() {
  WindowsRegistrySnapshot snap;
  const std::string cuda_key = "SOFTWARE\\NVIDIA Corporation\\GPU Computing Toolkit\\CUDA";
  if (auto versions = list_registry_subkeys(RegistryHive::kLocalMachine, cuda_key)) {
    for (const auto& v : *versions) {
      if (auto dir = read_registry_string(RegistryHive::kLocalMachine, cuda_key + "\\" + v, "InstallDir")) {
        snap.cuda_install_dirs.emplace_back(v, dir->value);
      }
    }
  }
  if (auto user = read_registry_string(RegistryHive::kCurrentUser, "Environment", "Path")) snap.user_path = user->value;
  if (auto system = read_registry_string(RegistryHive::kLocalMachine,
                                         "SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment", "Path")) {
    snap.system_path = system->value;
  }
  return snap;
}

}  // namespace cudnnup
