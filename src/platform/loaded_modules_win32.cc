#include <windows.h>
#include <psapi.h>

#include <string>

#include "platform/loaded_modules.h"

namespace cudnnup {

std::vector<std::string> loaded_module_paths() {
  std::vector<std::string> out;
  HMODULE modules[1024];
  DWORD needed = 0;
  HANDLE process = GetCurrentProcess();
  if (!EnumProcessModules(process, modules, sizeof modules, &needed)) return out;
  size_t count = needed / sizeof(HMODULE);
  if (count > 1024) count = 1024;
  for (size_t i = 0; i < count; ++i) {
    wchar_t wide[MAX_PATH * 2];
    DWORD n = GetModuleFileNameW(modules[i], wide, MAX_PATH * 2);
    if (n == 0) continue;
    int bytes = WideCharToMultiByte(CP_UTF8, 0, wide, static_cast<int>(n), nullptr, 0, nullptr, nullptr);
    std::string path(static_cast<size_t>(bytes), '\0');
    WideCharToMultiByte(CP_UTF8, 0, wide, static_cast<int>(n), path.data(), bytes, nullptr, nullptr);
    for (auto& ch : path) {
      if (ch == '\\') ch = '/';
    }
    out.push_back(path);
  }
  return out;
}

}  // namespace cudnnup
