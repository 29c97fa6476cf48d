// The process environment and console on Windows.
#include <windows.h>
#include <shellapi.h>

#include <algorithm>

#include "platform/registry.h"
#include "platform/system.h"
#include "platform/win32_text.h"
#include "base/strings.h"

namespace cudnnup {
namespace {


std::string slashes(std::string s) {
  std::replace(s.begin(), s.end(), '\\', '/');
  return s;
}

// %SystemRoot% and friends, expanded the way Windows does when it builds a new process's PATH.
std::string expand(const RegistryString& value) {
  if (!value.expandable) return value.value;
  std::wstring in = win32::widen(value.value);
  DWORD n = ExpandEnvironmentStringsW(in.c_str(), nullptr, 0);
  if (n == 0) return value.value;
  std::wstring out(n, L'\0');
  n = ExpandEnvironmentStringsW(in.c_str(), out.data(), n);
  if (n == 0) return value.value;
  out.resize(n - 1);  // n counts the terminating NUL
  return win32::narrow(out);
}

// What a terminal started now would get, and what the CUDA installer registered: doctor compares
// these with the running process (core/windows_checks.h, core/discovery.cc).
void read_registry_facts(Environment& env) {
  if (auto machine = read_registry_string(RegistryHive::kLocalMachine,
                                          "SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment", "Path")) {
    env.persistent_machine_path = expand(*machine);
  }
  if (auto user = read_registry_string(RegistryHive::kCurrentUser, "Environment", "Path")) {
    env.persistent_user_path = expand(*user);
  }
  const std::string cuda_key = "SOFTWARE\\NVIDIA Corporation\\GPU Computing Toolkit\\CUDA";
  if (auto versions = list_registry_subkeys(RegistryHive::kLocalMachine, cuda_key)) {
    for (const auto& v : *versions) {
      if (auto dir = read_registry_string(RegistryHive::kLocalMachine, cuda_key + "\\" + v, "InstallDir")) {
        std::string d = expand(*dir);
        if (!d.empty()) env.registry_cuda_dirs.push_back(slashes(d));
      }
    }
  }
}

// Set by prepare_console(): whether the console understands ANSI escape sequences.
bool g_console_has_vt = false;

}  // namespace

OsKind host_os() { return OsKind::kWindows; }

Environment current_environment() {
  Environment env;
  env.os = OsKind::kWindows;
  if (wchar_t* block = GetEnvironmentStringsW()) {
    for (const wchar_t* e = block; *e; e += wcslen(e) + 1) {
      std::string entry = win32::narrow(e);
      // Entries like "=C:=C:\work" (per-drive current directories) start with '='; skip them.
      size_t eq = entry.find('=', 1);
      if (eq == std::string::npos || entry[0] == '=') continue;
      // Windows variable names are case-insensitive; Environment::get() upper-cases its key too.
      env.vars[ascii_upper(entry.substr(0, eq))] = entry.substr(eq + 1);
    }
    FreeEnvironmentStringsW(block);
  }
  if (auto profile = env.get("USERPROFILE")) env.home = slashes(*profile);
  DWORD n = GetCurrentDirectoryW(0, nullptr);
  if (n > 0) {
    std::wstring cwd(n, L'\0');
    n = GetCurrentDirectoryW(n, cwd.data());
    cwd.resize(n);
    env.cwd = win32::from_win_path(cwd);
  }
  read_registry_facts(env);
  return env;
}

bool stdout_is_terminal() {
  DWORD mode = 0;
  // A console that cannot show ANSI colours (before Windows 10) counts as "not a terminal", so
  // the output stays plain instead of filling with escape codes.
  return GetConsoleMode(GetStdHandle(STD_OUTPUT_HANDLE), &mode) != 0 && g_console_has_vt;
}

bool stderr_is_terminal() {
  // The progress line needs only "\r", which every Windows console understands.
  DWORD mode = 0;
  return GetConsoleMode(GetStdHandle(STD_ERROR_HANDLE), &mode) != 0;
}

void prepare_console() {
  // UTF-8 output, so paths with non-ASCII names and the em-dash in --help show correctly.
  SetConsoleOutputCP(CP_UTF8);
  SetConsoleCP(CP_UTF8);
  HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  DWORD mode = 0;
  if (GetConsoleMode(out, &mode)) {
    g_console_has_vt = (mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0 ||
                       SetConsoleMode(out, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0;
  }
  // Never show the "System Error: a DLL is missing" dialog box when a probe loads a broken
  // library: the error must come back as a value.
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
}

std::vector<std::string> command_line_arguments(int argc, char** argv) {
  // argv from the C runtime is in the ANSI code page, which loses characters; re-read the
  // command line as UTF-16.
  int n = 0;
  wchar_t** wargv = CommandLineToArgvW(GetCommandLineW(), &n);
  std::vector<std::string> out;
  if (!wargv) {
    out.assign(argv, argv + argc);
    return out;
  }
  for (int i = 0; i < n; ++i) out.push_back(win32::narrow(wargv[i]));
  LocalFree(wargv);
  return out;
}

std::string host_name() {
  DWORD n = 0;
  GetComputerNameExW(ComputerNameDnsHostname, nullptr, &n);  // asks for the size, NUL included
  if (n == 0) return {};
  std::wstring name(n, L'\0');
  if (!GetComputerNameExW(ComputerNameDnsHostname, name.data(), &n)) return {};
  name.resize(n);  // now without the NUL
  return win32::narrow(name);
}

}  // namespace cudnnup
