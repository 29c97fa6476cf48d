// One self-contained HTML page (doctor --format html, fleet --format html): inline CSS and SVG,
// nothing fetched, no script. The page carries a Content-Security-Policy that allows no network
// at all and only its own stylesheet (by hash), so even markup that escaped into it could not load
// or run anything. Every string from the machine or a report goes through html_text() first.
#pragma once

#include <string>
#include <string_view>

namespace cudnnup {

// `s` as HTML text or attribute value (and XML's, for the bench SVG): & < > " ' escaped, and every
// byte that does not start valid UTF-8 (paths are whatever bytes the machine has) shown as U+FFFD.
std::string html_text(std::string_view s);

// The status marks of the checklist and the findings, as a CSS class and a symbol.
enum class HtmlMark { kOk, kInfo, kWarning, kError, kNone };
std::string html_mark(HtmlMark mark);  // <span class="mark ok">✓</span>, ...
// One line of a checklist: <li>MARK<strong>WHAT:</strong> ANSWER</li> (answer_html is already HTML).
std::string html_check_line(HtmlMark mark, const std::string& what, const std::string& answer_html);

// The Content-Security-Policy of every page: no sources at all (default-src 'none'), except the
// one inline stylesheet, allowed by its sha256; no base URI, no form targets.
std::string html_content_security_policy();

// The whole document: <!DOCTYPE html>, the CSP and stylesheet in <head>, `title` (escaped here),
// and `body_html` (already HTML) in <body>.
std::string html_document(std::string_view title, std::string_view body_html);

}  // namespace cudnnup
