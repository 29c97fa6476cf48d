// A snapshot of the process environment, passed into the logic as data so tests can describe
// any machine (Linux or Windows) without touching the real one.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudnnup {

enum class OsKind { kLinux, kWindows };

struct Environment {
  OsKind os = OsKind::kLinux;
  std::map<std::string, std::string> vars;  // on Windows, keys are stored upper-case
  std::string home;                         // $HOME or %USERPROFILE%, '/' separators
  std::string cwd;
  std::string arch = "x86_64";              // the CPU we run on: x86_64, aarch64, ppc64le
  // POSIX: the effective user id (-1 where unknown, and on Windows). Root (0) may write every
  // file, whatever its owner and mode.
  long long effective_uid = -1;

  // Windows only: the persistent PATH as the registry holds it now (HKLM Session Manager
  // Environment, then HKCU Environment), %VARS% expanded. New terminals get this; the running
  // one keeps the PATH it started with. Unset where unknown.
  std::optional<std::string> persistent_machine_path;
  std::optional<std::string> persistent_user_path;
  // Windows only: CUDA toolkits the installer registered in the registry (SOFTWARE, NVIDIA
  // Corporation, GPU Computing Toolkit, CUDA, v<X.Y>: value InstallDir).
  std::vector<std::string> registry_cuda_dirs;

  bool windows() const { return os == OsKind::kWindows; }
  bool superuser() const { return effective_uid == 0; }
  char list_separator() const { return windows() ? ';' : ':'; }
  std::optional<std::string> get(const std::string& name) const;
  // The entries of a list variable (PATH, LD_LIBRARY_PATH), empty entries kept.
  std::vector<std::string> get_list(const std::string& name) const;
  // Windows: the Windows folder, %SYSTEMROOT% (else %WINDIR%, else C:/Windows), '/' separators;
  // System32 is below it. Every Windows DLL search and check starts from this one answer.
  std::string windows_dir() const;
};

}  // namespace cudnnup
