// Small string helpers every domain needs: ASCII case, digits, trimming, splitting, joining.
// ASCII only on purpose: file names, DLL names and environment values are compared the way the
// loaders compare them, never by the user's locale. (std::string_view::starts_with/ends_with are
// C++20's own and are used directly.)
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cudnnup {

bool all_digits(std::string_view s);  // non-empty and only 0-9
// 0-9 only: std::isdigit takes an int and consults the locale.
constexpr bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

char ascii_lower(char c);
std::string ascii_lower(std::string_view s);
std::string ascii_upper(std::string_view s);
bool iequals(std::string_view a, std::string_view b);        // ASCII case-insensitive
bool istarts_with(std::string_view s, std::string_view prefix);
bool iends_with(std::string_view s, std::string_view suffix);

bool contains(std::string_view haystack, std::string_view needle);
bool icontains(std::string_view haystack, std::string_view needle);  // ASCII case-insensitive

// Without leading and trailing ASCII white space (space, \t, \n, \v, \f, \r).
std::string_view trim(std::string_view s);

// "a,b,,c" -> {"a", "b", "", "c"}; "" -> {""}. Empty parts are kept.
std::vector<std::string> split(std::string_view s, char separator);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
// "\n  - a\n  - b": items listed under a message, one per line.
std::string bullet_lines(const std::vector<std::string>& items);
// A count and a noun that takes -s: "1 host", "2 hosts".
std::string plural(size_t n, std::string_view word);

// `value` printed with one printf conversion ("%.1f"); cudnnup never sets a locale, so with a dot.
std::string format_number(const char* printf_format, double value);

}  // namespace cudnnup
