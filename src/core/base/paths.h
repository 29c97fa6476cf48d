// Path strings with '/' separators (see core/filesystem.h). Pure string work, no I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cudnnup::paths {

std::string join(std::string_view a, std::string_view b);
std::string parent(std::string_view path);     // "/a/b" -> "/a"; "/a" -> "/"; "C:/a" -> "C:/"
std::string_view basename(std::string_view path);
bool is_absolute(std::string_view path);      // "/x", "C:/x", "C:\x", "\\server\x"
// Turns backslashes into '/', collapses "//" and "/./", resolves ".." lexically, drops a trailing '/'.
std::string normalize(std::string_view path);
// "a:b:c" style lists (PATH, LD_LIBRARY_PATH). Empty entries are kept as "" because ld.so and
// Windows treat them as the current directory, which a diagnosis must report.
std::vector<std::string> split_list(std::string_view list, char separator);
// Shows a path the way the user's OS writes it.
std::string to_native(std::string_view path, bool windows);
// A path as Windows writes it (backslashes): what the Windows-only checks print.
inline std::string to_windows(std::string_view path) { return to_native(path, true); }

}  // namespace cudnnup::paths
