#include "platform/win32_text.h"

#include <algorithm>

#ifndef ERROR_ELEVATION_REQUIRED
#define ERROR_ELEVATION_REQUIRED 740L  // older mingw-w64 headers lack it
#endif

namespace cudnnup::win32 {

std::wstring widen(std::string_view utf8) {
  if (utf8.empty()) return {};
  int n = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
  std::wstring out(static_cast<size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), out.data(), n);
  return out;
}

std::string narrow(std::wstring_view utf16) {
  if (utf16.empty()) return {};
  int n = WideCharToMultiByte(CP_UTF8, 0, utf16.data(), static_cast<int>(utf16.size()), nullptr, 0, nullptr,
                              nullptr);
  std::string out(static_cast<size_t>(n), '\0');
  WideCharToMultiByte(CP_UTF8, 0, utf16.data(), static_cast<int>(utf16.size()), out.data(), n, nullptr, nullptr);
  return out;
}

std::wstring to_win_path(std::string_view path) {
  std::wstring out = widen(path);
  std::replace(out.begin(), out.end(), L'/', L'\\');
  bool drive_absolute = out.size() >= 3 && out[1] == L':' && out[2] == L'\\';
  if (drive_absolute && out.size() >= MAX_PATH - 12) {
    // "\\?\" paths are passed to the filesystem as they are: no "." or ".." processing, so
    // collapse those first.
    wchar_t full[32768];
    DWORD n = GetFullPathNameW(out.c_str(), 32768, full, nullptr);
    if (n > 0 && n < 32768) out.assign(full, n);
    out = L"\\\\?\\" + out;
  }
  return out;
}

std::string from_win_path(std::wstring_view path) {
  std::wstring p(path);
  if (p.rfind(L"\\\\?\\UNC\\", 0) == 0) {
    p = L"\\\\" + p.substr(8);
  } else if (p.rfind(L"\\\\?\\", 0) == 0 || p.rfind(L"\\??\\", 0) == 0) {
    p = p.substr(4);
  }
  std::string out = narrow(p);
  std::replace(out.begin(), out.end(), '\\', '/');
  return out;
}

std::string error_text(DWORD code) {
  wchar_t* buf = nullptr;
  DWORD n = FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                           nullptr, code, 0, reinterpret_cast<wchar_t*>(&buf), 0, nullptr);
  std::string text = n && buf ? narrow(std::wstring_view(buf, n)) : std::string();
  if (buf) LocalFree(buf);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '.')) {
    text.pop_back();
  }
  if (text.empty()) text = "system error";
  return text + " (error " + std::to_string(code) + ")";
}

Error make_win32_error(const std::string& what, const std::string& path, DWORD code) {
  ErrorCode kind = ErrorCode::kIo;
  switch (code) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_NAME:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_PATHNAME:
    case ERROR_INVALID_DRIVE:
    case ERROR_DIRECTORY:
    case ERROR_MOD_NOT_FOUND:
      kind = ErrorCode::kNotFound;
      break;
    case ERROR_ACCESS_DENIED:
    case ERROR_PRIVILEGE_NOT_HELD:
    case ERROR_WRITE_PROTECT:
    case ERROR_ELEVATION_REQUIRED:
      kind = ErrorCode::kPermission;
      break;
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_USER_MAPPED_FILE:
      // The file is open in another process (a running Python holding cudnn64_9.dll).
      kind = ErrorCode::kConflict;
      break;
    default:
      break;
  }
  std::string message = what;
  if (!path.empty()) message += " " + path;
  return make_error(kind, message + ": " + error_text(code), path);
}

}  // namespace cudnnup::win32
