// `cudnnup doctor --format html`: the doctor report as one page to share, with the checklist, the
// findings and their fixes, the copies, what loads and why, the frameworks, and (when given) the
// verify stages and the bench plot.
//
// The page is rendered from the JSON documents, not from the in-memory report, so a saved
// `cudnnup --json doctor` (from another machine, or from before) renders exactly like a live run:
// doctor --format html --from report.json. Those documents are untrusted input: every field is
// read with its type checked (base/json_reader.h) and every string is escaped (html_page.h).
#pragma once

#include <optional>
#include <string>

#include "base/result.h"

namespace cudnnup {

// A JSON document to show and where it came from ("this machine", a path), for messages.
struct HtmlSource {
  std::string text;
  std::string origin;
};

struct HtmlReportInputs {
  HtmlSource doctor;                 // cudnnup.doctor/1
  std::optional<HtmlSource> verify;  // cudnnup.verify/1
  std::optional<HtmlSource> bench;   // cudnnup.bench/1
  std::string generated;             // when the page was made, shown as given ("2026-12-03 14:05 UTC")
};

struct HtmlReport {
  std::string html;
  int doctor_exit_code = 0;  // what `cudnnup doctor` exits with for the report: 1 with errors
};

// The page, or an error (exit 2) naming the document and the field that is not what cudnnup
// writes (a wrong schema, a field of the wrong type).
Result<HtmlReport> render_doctor_html(const HtmlReportInputs& inputs);

// The schema name of a JSON document ("cudnnup.verify/1"), "" when it has none or is not JSON:
// doctor --from uses it to tell a saved doctor, verify and bench report apart.
std::string json_document_schema(const std::string& text);

}  // namespace cudnnup
