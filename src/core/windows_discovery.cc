#include "core/windows_discovery.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/paths.h"

namespace cudnnup {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// Windows compares paths case-insensitively and ignores a trailing separator.
std::string path_key(const std::string& p) { return lower(paths::normalize(p)); }

std::string program_files(const Environment& env) {
  return paths::normalize(env.get("PROGRAMFILES").value_or("C:/Program Files"));
}

std::vector<std::string> children(const FileSystem& fs, const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  auto entries = fs.list_dir(dir);
  if (!entries) return out;
  for (const auto& e : *entries) {
    if (lower(e.name).rfind(lower(prefix), 0) == 0 && fs.is_dir(paths::join(dir, e.name))) {
      out.push_back(paths::join(dir, e.name));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool has_cudnn_dll(const FileSystem& fs, const std::string& dir) {
  auto entries = fs.list_dir(dir);
  if (!entries) return false;
  for (const auto& e : *entries) {
    std::string n = lower(e.name);
    if (n.rfind("cudnn", 0) == 0 && n.size() > 4 && n.substr(n.size() - 4) == ".dll") return true;
  }
  return false;
}

}  // namespace

std::vector<CandidateDir> windows_toolkit_roots(const FileSystem& fs, const Environment& env,
                                                const WindowsRegistrySnapshot& registry) {
  std::vector<CandidateDir> out;
  for (const auto& [key, dir] : registry.cuda_install_dirs) {
    if (!dir.empty()) {
      out.push_back({paths::normalize(expand_windows_variables(dir, env)),
                     "registry HKLM\\SOFTWARE\\NVIDIA Corporation\\GPU Computing Toolkit\\CUDA\\" + key});
    }
  }
  std::string pf = program_files(env);
  for (const auto& d : children(fs, pf + "/NVIDIA GPU Computing Toolkit/CUDA", "v")) {
    out.push_back({d, "%ProgramFiles%\\NVIDIA GPU Computing Toolkit\\CUDA"});
  }
  return out;
}

std::vector<CandidateDir> windows_cudnn_installer_dirs(const FileSystem& fs, const Environment& env) {
  std::vector<CandidateDir> out;
  std::string why = "cuDNN installer (%ProgramFiles%\\NVIDIA\\CUDNN)";
  for (const auto& version_dir : children(fs, program_files(env) + "/NVIDIA/CUDNN", "v")) {
    std::string bin = version_dir + "/bin";
    out.push_back({bin, why});
    for (const auto& sub : children(fs, bin, "")) {
      if (has_cudnn_dll(fs, sub)) out.push_back({sub, why});
      std::string x64 = sub + "/x64";
      if (fs.is_dir(x64) && has_cudnn_dll(fs, x64)) out.push_back({x64, why});
    }
  }
  return out;
}

DllInspection inspect_dll(const FileSystem& fs, const std::string& path, uint16_t expected_machine) {
  DllInspection out;
  auto info = fs.stat(path);
  if (!info) {
    out.problems.push_back(info.error().message);
    return out;
  }
  if (info->size == 0) {
    out.problems.push_back("empty file (0 bytes): a failed copy, download or unzip, or antivirus quarantine");
    return out;
  }
  RangeReader reader = [&fs, &path](uint64_t offset, size_t n) { return fs.read_range(path, offset, n); };
  auto pe = parse_pe(reader, info->size);
  if (!pe) {
    out.problems.push_back(pe.error().message);
    return out;
  }
  out.file_version = pe->file_version;
  out.imports = pe->imports;
  out.description = pe->file_description;
  if (pe->machine != expected_machine) {
    out.problems.push_back("built for " + pe_machine_name(pe->machine) + ", not " + pe_machine_name(expected_machine) +
                           ": LoadLibrary fails with error 193");
  }
  if (!pe->is_dll) out.problems.push_back("not a DLL (an executable image)");
  for (const auto& p : pe->problems) out.problems.push_back(p);
  return out;
}

std::string expand_windows_variables(const std::string& value, const Environment& env) {
  std::string out;
  size_t pos = 0;
  while (pos < value.size()) {
    size_t start = value.find('%', pos);
    if (start == std::string::npos) break;
    size_t end = value.find('%', start + 1);
    if (end == std::string::npos) break;
    out.append(value, pos, start - pos);
    std::string name = value.substr(start + 1, end - start - 1);
    auto v = name.empty() ? std::nullopt : env.get(name);
    if (v) {
      out += *v;
      pos = end + 1;
    } else {
      // Not a variable (or an unknown one): keep the first '%' and look again from the second,
      // as ExpandEnvironmentStrings does.
      out.append(value, start, end - start);
      pos = end;
    }
  }
  out.append(value, pos, std::string::npos);
  return out;
}

PathDrift compare_session_path(const Environment& env, const WindowsRegistrySnapshot& registry) {
  PathDrift drift;
  std::vector<std::string> registry_entries;
  auto add_registry = [&](const std::optional<std::string>& raw, const char* where) {
    if (!raw) return;
    // setx and old installers cut PATH at 1024 characters (facts B.6): an exact 1024 is suspicious.
    if (raw->size() == 1024) {
      drift.problems.push_back(std::string(where) + " PATH is exactly 1024 characters long: it was probably cut "
                               "short by `setx` (which truncates at 1024); entries at its end may be lost");
    }
    for (const auto& e : paths::split_list(expand_windows_variables(*raw, env), ';')) {
      if (!e.empty()) registry_entries.push_back(e);
    }
  };
  add_registry(registry.system_path, "The system");
  add_registry(registry.user_path, "Your user");
  if (!registry.system_path && !registry.user_path) return drift;

  std::vector<std::string> session = env.get_list("PATH");
  std::set<std::string> session_keys, registry_keys;
  for (const auto& e : session) {
    if (!e.empty()) session_keys.insert(path_key(e));
  }
  for (const auto& e : registry_entries) registry_keys.insert(path_key(e));
  std::set<std::string> reported;
  for (const auto& e : registry_entries) {
    if (!session_keys.count(path_key(e)) && reported.insert(path_key(e)).second) drift.missing_from_session.push_back(e);
  }
  for (const auto& e : session) {
    if (!e.empty() && !registry_keys.count(path_key(e)) && reported.insert(path_key(e)).second) {
      drift.only_in_session.push_back(e);
    }
  }
  auto value = env.get("PATH");
  if (value && value->size() > 32767) {
    drift.problems.push_back("PATH is " + std::to_string(value->size()) +
                             " characters, more than the 32767 Windows allows for one variable");
  }
  return drift;
}

}  // namespace cudnnup
