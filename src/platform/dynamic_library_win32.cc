#include <windows.h>

#include "platform/dynamic_library.h"
#include "platform/win32_text.h"

namespace cudnnup {
namespace {

// What the three load errors people meet actually mean (docs/windows.md).
std::string explain_load_error(DWORD code) {
  switch (code) {
    case ERROR_MOD_NOT_FOUND:
      return "; the DLL or one of the DLLs it imports was not found";
    case ERROR_PROC_NOT_FOUND:
      return "; a DLL it imports lacks a function it needs (a dependency of another version)";
    case ERROR_BAD_EXE_FORMAT:
      return "; the file is not a valid 64-bit DLL (wrong machine type, truncated or empty)";
    default:
      return "";
  }
}

}  // namespace

void use_safe_library_search() { SetDllDirectoryW(L""); }

Result<DynamicLibrary> DynamicLibrary::open(const std::string& absolute_path) {
  // With an absolute path, LOAD_WITH_ALTERED_SEARCH_PATH makes the DLL's own directory the first
  // place searched for the DLLs it imports (cudnn64_9.dll's sub-libraries sit next to it).
  DWORD old_mode = 0;
  SetThreadErrorMode(SEM_FAILCRITICALERRORS, &old_mode);  // no "DLL missing" dialog box
  HMODULE module = LoadLibraryExW(win32::to_win_path(absolute_path).c_str(), nullptr, LOAD_WITH_ALTERED_SEARCH_PATH);
  DWORD err = module ? 0 : GetLastError();
  SetThreadErrorMode(old_mode, nullptr);
  if (!module) {
    Error e = win32::make_win32_error("cannot load", absolute_path, err);
    e.message += explain_load_error(err);
    if (e.code == ErrorCode::kNotFound || e.code == ErrorCode::kPermission || e.code == ErrorCode::kConflict) {
      return e;
    }
    e.code = ErrorCode::kIo;
    return e;
  }
  return DynamicLibrary(reinterpret_cast<void*>(module));
}

DynamicLibrary::~DynamicLibrary() {
  if (handle_) FreeLibrary(static_cast<HMODULE>(handle_));
}

void* DynamicLibrary::symbol(const char* name) const {
  if (!handle_) return nullptr;
  return reinterpret_cast<void*>(GetProcAddress(static_cast<HMODULE>(handle_), name));
}

}  // namespace cudnnup
