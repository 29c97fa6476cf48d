// Windows only: UTF-8 <-> UTF-16 and cudnnup's '/'-separated paths <-> Win32 paths, plus turning
// GetLastError() into an Error. Included by the *_win32.cc files only.
#pragma once

#include <windows.h>

#include <string>
#include <string_view>

#include "base/result.h"

namespace cudnnup::win32 {

std::wstring widen(std::string_view utf8);
std::string narrow(std::wstring_view utf16);

// "C:/Program Files/x" -> L"C:\\Program Files\\x". Absolute drive paths longer than MAX_PATH get
// the "\\?\" prefix so deep store trees keep working without the LongPathsEnabled policy.
std::wstring to_win_path(std::string_view path);
// L"\\?\C:\x" or L"C:\x" -> "C:/x"; L"\\?\UNC\server\share" -> "//server/share".
std::string from_win_path(std::wstring_view path);

// The system's text for an error code, without the trailing newline.
std::string error_text(DWORD code);
// "<what> <path>: <system text> (error N)", with the ErrorCode that fits `code`.
Error make_win32_error(const std::string& what, const std::string& path, DWORD code);

}  // namespace cudnnup::win32
