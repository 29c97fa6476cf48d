#include "app/render/html_page.h"

#include "base/utf8.h"
#include "platform/sha256.h"

namespace cudnnup {
namespace {

// The page's only stylesheet. Its sha256 is in the CSP, so it must be the exact text of <style>.
// Colours also carry a symbol (✓ ! ✗ i): the page reads in greyscale and to screen readers.
constexpr std::string_view kStylesheet = R"css(
:root { color-scheme: light; --ok: #2e7d32; --warn: #b26a00; --bad: #c62828; --info: #1565c0; --line: #d0d7de; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; margin: 0; color: #1f2328; background: #f6f8fa; }
header { background: #24292f; color: #fff; padding: 18px 28px; }
header h1 { margin: 0 0 4px; font-size: 22px; }
header p { margin: 0; color: #d0d7de; }
main { max-width: 1100px; margin: 0 auto; padding: 8px 28px 40px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px; margin: 18px 0; padding: 4px 18px 14px; }
h2 { font-size: 18px; border-bottom: 1px solid var(--line); padding-bottom: 6px; }
h3 { font-size: 15px; margin: 14px 0 4px; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; vertical-align: top; padding: 4px 8px; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
th { background: #f6f8fa; }
code, pre { font: 13px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; }
pre { background: #f6f8fa; border: 1px solid var(--line); border-radius: 4px; padding: 6px 10px; white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; }
ul.checklist { list-style: none; padding: 0; }
ul.checklist li { padding: 6px 0; border-bottom: 1px solid var(--line); }
.mark { display: inline-block; width: 1.4em; text-align: center; font-weight: bold; border-radius: 3px; color: #fff; margin-right: 6px; }
.mark.ok { background: var(--ok); } .mark.warn { background: var(--warn); } .mark.bad { background: var(--bad); } .mark.info { background: var(--info); }
.mark.none { background: #8c959f; }
.finding { border-left: 4px solid var(--line); padding: 2px 12px; margin: 10px 0; }
.finding.bad { border-color: var(--bad); } .finding.warn { border-color: var(--warn); } .finding.info { border-color: var(--info); }
.dim { color: #57606a; }
.summary { font-size: 16px; font-weight: bold; }
details > summary { cursor: pointer; color: #0969da; }
svg { max-width: 100%; height: auto; }
.n { white-space: nowrap; width: 1%; }
)css";

std::string base64(const std::string& bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = uint32_t(uint8_t(bytes[i])) << 16;
    if (i + 1 < bytes.size()) n |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) n |= uint8_t(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

// CSP hashes are base64 of the raw digest; Sha256 gives lower-case hex.
std::string sha256_base64(std::string_view text) {
  Sha256 h;
  h.update(text);
  std::string hex = h.hex_digest(), raw;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) raw += char(std::stoi(hex.substr(i, 2), nullptr, 16));
  return base64(raw);
}

}  // namespace

std::string html_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : utf8_replaced(s)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string html_mark(HtmlMark mark) {
  switch (mark) {
    case HtmlMark::kOk: return "<span class=\"mark ok\" title=\"ok\">✓</span>";
    case HtmlMark::kInfo: return "<span class=\"mark info\" title=\"note\">i</span>";
    case HtmlMark::kWarning: return "<span class=\"mark warn\" title=\"warning\">!</span>";
    case HtmlMark::kError: return "<span class=\"mark bad\" title=\"error\">✗</span>";
    case HtmlMark::kNone: break;
  }
  return "<span class=\"mark none\" title=\"not checked\">–</span>";
}

std::string html_content_security_policy() {
  return "default-src 'none'; style-src 'sha256-" + sha256_base64(kStylesheet) +
         "'; base-uri 'none'; form-action 'none'";
}

std::string html_document(std::string_view title, std::string_view body_html) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta http-equiv=\"Content-Security-Policy\" content=\"" + html_content_security_policy() + "\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta name=\"referrer\" content=\"no-referrer\">\n";
  out += "<title>" + html_text(title) + "</title>\n";
  out += "<style>" + std::string(kStylesheet) + "</style>\n</head>\n<body>\n";
  out += body_html;
  out += "</body>\n</html>\n";
  return out;
}

std::string html_check_line(HtmlMark mark, const std::string& what, const std::string& answer_html) {
  return "<li>" + html_mark(mark) + "<strong>" + html_text(what) + ":</strong> " + answer_html + "</li>\n";
}

}  // namespace cudnnup
