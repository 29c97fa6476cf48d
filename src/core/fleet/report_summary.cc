#include "fleet/report_summary.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/strings.h"
#include "base/version.h"

namespace cudnnup {
namespace {

constexpr const char* kDoctorSchema = "cudnnup.doctor/1";
constexpr const char* kDoctorPrefix = "cudnnup.doctor/";
constexpr size_t kMaxErrorIds = 8;
constexpr size_t kMaxHostLength = 253;  // the longest DNS name

// What the reader keeps of one "copies" entry and one "plain_program" entry.
struct CopyFields {
  std::string lib_dir, version;
  PackageForm form = PackageForm::kUnknown;
  int cuda_major = 0;
};

// doctor's form names (base/model.h); a name this cudnnup does not know is kUnknown.
PackageForm form(const std::string& name) {
  for (PackageForm f : {PackageForm::kToolkitMerged, PackageForm::kArchiveTree, PackageForm::kPipWheel,
                        PackageForm::kConda, PackageForm::kSystemPackage, PackageForm::kStore,
                        PackageForm::kInstaller}) {
    if (name == package_form_name(f)) return f;
  }
  return PackageForm::kUnknown;
}
struct LoadFields {
  bool found = false;
  std::string canonical, path, version;
};

// Where in the document a value is: the keys of the enclosing objects, "[]" for an array level.
struct Frame {
  bool array = false;
  std::string key;  // the member being read (objects only)
};

// The stream of parse events reduced to the fields above. Each value is looked at once, by
// where it sits; everything else (candidates, search dirs, libraries) is skipped as it goes by.
class DoctorFields : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::optional<std::string> schema, host;
  std::string os;
  bool has_summary = false, has_loads = false;
  int errors = 0, warnings = 0, infos = 0, exit_code = 0;
  std::vector<CopyFields> copies;
  // "plain_program"; a Windows report's "windows_loads" says what loads there instead.
  std::vector<LoadFields> plain_loads, windows_loads;
  bool has_windows_loads = false;
  const std::vector<LoadFields>& loads() const { return has_windows_loads ? windows_loads : plain_loads; }
  std::vector<std::string> error_ids;
  std::string type_error;      // the first field of the wrong type
  bool top_not_object = false;
  size_t error_position = 0;   // where the parser gave up
  std::string parse_message;

  bool null() override { return scalar(Value{}); }
  bool boolean(bool b) override { return scalar(Value{Value::kBool, b}); }
  bool number_integer(number_integer_t n) override { return integer(static_cast<long long>(n)); }
  bool number_unsigned(number_unsigned_t n) override {
    return integer(n > static_cast<uint64_t>(std::numeric_limits<long long>::max()) ? -1 : static_cast<long long>(n));
  }
  bool number_float(number_float_t, const string_t&) override { return scalar(Value{Value::kOther}); }
  bool string(string_t& s) override { return scalar(Value{Value::kString, false, 0, &s}); }
  bool binary(binary_t&) override { return scalar(Value{Value::kOther}); }

  bool start_object(std::size_t) override {
    if (stack_.empty() && seen_top_) return fail_top();
    seen_top_ = true;
    if (element_of("copies")) copies.emplace_back();
    if (element_of("plain_program")) plain_loads.emplace_back();
    if (element_of("windows_loads")) windows_loads.emplace_back();
    if (element_of("findings")) finding_ = {};
    if (at(1, "summary")) has_summary = true;
    stack_.push_back(Frame{});
    return true;
  }
  bool end_object() override {
    stack_.pop_back();
    if (element_of("findings")) finish_finding();
    return true;
  }
  bool start_array(std::size_t) override {
    if (stack_.empty()) return fail_top();
    if (at(1, "plain_program")) has_loads = true;
    if (at(1, "windows_loads")) has_windows_loads = true;
    stack_.push_back(Frame{true, {}});
    return true;
  }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }
  bool key(string_t& k) override {
    stack_.back().key = k;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    error_position = position;
    parse_message = e.what();
    return false;
  }

 private:
  struct Value {
    enum Kind { kNull, kBool, kInt, kString, kOther } kind = kNull;
    bool b = false;
    long long n = 0;
    const std::string* s = nullptr;
  };
  struct FindingFields {
    std::string id, severity;
  };

  bool fail_top() {
    top_not_object = true;
    return false;
  }
  // The value sits at depth `depth` under top-level member `top` (depth 1: the member itself).
  bool at(size_t depth, std::string_view top) const { return stack_.size() == depth && stack_[0].key == top; }
  // An object about to start is an element of top-level array `top`.
  bool element_of(std::string_view top) const { return at(2, top) && stack_[1].array; }
  // A member of an object that is an element of top-level array `top` (not of an array nested
  // there: "copies": [["x"]] must not be read as a copy's field).
  bool in_element(std::string_view top) const {
    return stack_.size() == 3 && stack_[0].key == top && stack_[1].array && !stack_[2].array;
  }

  bool integer(long long n) { return scalar(Value{Value::kInt, false, n}); }

  void wrong_type(const std::string& field, const char* want) {
    if (type_error.empty()) type_error = "field '" + field + "' must be " + want;
  }
  std::string text(const Value& v, const std::string& field, bool nullable) {
    if (v.kind == Value::kString) return *v.s;
    if (!(nullable && v.kind == Value::kNull)) wrong_type(field, nullable ? "a string or null" : "a string");
    return {};
  }
  // A version string or null ("" then); anything else is not a version a host could load.
  std::string version(const Value& v, const std::string& field) {
    std::string t = text(v, field, true);
    if (!t.empty() && !Version::parse(t)) wrong_type(field, "a version such as 9.19.0.56");
    return t;
  }
  int count(const Value& v, const std::string& field) {
    if (v.kind == Value::kInt && v.n >= 0 && v.n <= std::numeric_limits<int>::max()) return static_cast<int>(v.n);
    wrong_type(field, "a count (an integer from 0)");
    return 0;
  }

  bool scalar(const Value& v) {
    if (stack_.empty()) return fail_top();
    if (stack_.size() == 1) top_level(stack_[0].key, v);
    else if (at(2, "summary")) summary(stack_[1].key, v);
    else if (in_element("copies")) copy(stack_[2].key, v);
    else if (in_element("findings")) finding(stack_[2].key, v);
    else if (stack_.size() == 4 && stack_[1].array && !stack_[2].array && !stack_[3].array) {
      if (stack_[0].key == "plain_program" && !plain_loads.empty()) load(plain_loads.back(), v);
      if (stack_[0].key == "windows_loads" && !windows_loads.empty()) load(windows_loads.back(), v);
    }
    return true;
  }
  void top_level(const std::string& key, const Value& v) {
    if (key == "schema") schema = text(v, key, false);
    else if (key == "host") host = text(v, key, false);
    else if (key == "os") os = text(v, key, false);
  }
  void summary(const std::string& key, const Value& v) {
    if (key == "errors") errors = count(v, "summary.errors");
    else if (key == "warnings") warnings = count(v, "summary.warnings");
    else if (key == "infos") infos = count(v, "summary.infos");
    else if (key == "exit_code") exit_code = count(v, "summary.exit_code");
  }
  void copy(const std::string& key, const Value& v) {
    CopyFields& c = copies.back();
    if (key == "lib_dir") c.lib_dir = text(v, "copies[].lib_dir", false);
    else if (key == "version") c.version = version(v, "copies[].version");
    else if (key == "form") c.form = form(text(v, "copies[].form", false));
    else if (key == "cuda_major" && v.kind != Value::kNull) c.cuda_major = count(v, "copies[].cuda_major");
  }
  void load(LoadFields& l, const Value& v) {
    const std::string &object = stack_[2].key, &key = stack_[3].key;
    if (object == "resolution" && key == "found") {
      if (v.kind == Value::kBool) l.found = v.b;
      else wrong_type("plain_program[].resolution.found", "true or false");
    } else if (object == "resolution" && key == "canonical") {
      l.canonical = text(v, "plain_program[].resolution.canonical", true);
    } else if (object == "resolution" && key == "path") {
      l.path = text(v, "plain_program[].resolution.path", true);
    } else if (object == "cudnn" && key == "version") {
      l.version = version(v, "plain_program[].cudnn.version");
    }
  }
  void finding(const std::string& key, const Value& v) {
    if (key == "id") finding_.id = text(v, "findings[].id", false);
    else if (key == "severity") finding_.severity = text(v, "findings[].severity", false);
  }
  void finish_finding() {
    if (finding_.severity != "error" || error_ids.size() >= kMaxErrorIds) return;
    if (std::find(error_ids.begin(), error_ids.end(), finding_.id) == error_ids.end()) error_ids.push_back(finding_.id);
  }

  std::vector<Frame> stack_;
  bool seen_top_ = false;
  FindingFields finding_;
};

std::string slashes(std::string p) {
  std::replace(p.begin(), p.end(), '\\', '/');
  return p;
}

std::string directory_of(const std::string& file) {
  std::string f = slashes(file);
  size_t slash = f.rfind('/');
  return slash == std::string::npos ? std::string() : f.substr(0, slash);
}

// The report's own copy for the file that loads: the one whose library directory holds it.
FleetLoadedCopy loaded_copy(const LoadFields& l, const std::vector<CopyFields>& copies) {
  for (const std::string& file : {l.canonical, l.path}) {
    if (file.empty()) continue;
    std::string dir = directory_of(file);
    for (const CopyFields& c : copies) {
      if (slashes(c.lib_dir) == dir) return FleetLoadedCopy{c.version.empty() ? l.version : c.version, c.cuda_major, c.form};
    }
  }
  return FleetLoadedCopy{l.version, 0, PackageForm::kUnknown};
}

bool host_name_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

ReportReading problem(ReportProblem p, std::string detail) {
  ReportReading r;
  r.problem = p;
  r.detail = std::move(detail);
  return r;
}

// The reading of a document that parsed: its schema, its host, then its fields.
ReportReading judge(DoctorFields& f) {
  if (!f.schema) return problem(ReportProblem::kNotDoctor, "not a cudnnup report: it has no \"schema\" field");
  const std::string& schema = *f.schema;
  if (schema == "cudnnup.error/1") {
    return problem(ReportProblem::kDoctorFailed,
                   "doctor failed on that host (a cudnnup.error/1 document): run `cudnnup doctor` there to see why");
  }
  if (schema.rfind(kDoctorPrefix, 0) == 0 && schema != kDoctorSchema) {
    return problem(ReportProblem::kUnknownSchema,
                   "schema " + schema + " is not one this cudnnup reads (" + kDoctorSchema + "): use the same cudnnup version on every host");
  }
  if (schema != kDoctorSchema) {
    return problem(ReportProblem::kNotDoctor, "a " + schema + " document, not a doctor report: gather `cudnnup --json doctor`");
  }
  if (!f.type_error.empty()) return problem(ReportProblem::kMalformed, "a doctor report whose " + f.type_error);
  if (!f.has_summary || !f.has_loads) {
    return problem(ReportProblem::kMalformed, std::string("a doctor report without its \"") +
                                                  (f.has_summary ? "plain_program" : "summary") + "\" field");
  }
  if (!f.host) {
    return problem(ReportProblem::kOlderSchema,
                   "a doctor report from a cudnnup older than the \"host\" field: rerun it with this cudnnup");
  }
  const std::string& host = *f.host;
  if (host.empty() || host.size() > kMaxHostLength || !std::all_of(host.begin(), host.end(), host_name_character)) {
    return problem(ReportProblem::kBadHost, host.empty() ? "its \"host\" is empty (the host did not say its name)"
                                                         : "its \"host\" is not a host name (letters, digits, '-', '.', '_'; at most 253)");
  }
  ReportReading r;
  ReportSummary& s = r.summary;
  s.host = host;
  s.os = f.os;
  s.errors = f.errors;
  s.warnings = f.warnings;
  s.infos = f.infos;
  s.exit_code = f.exit_code;
  s.error_ids = std::move(f.error_ids);
  for (const LoadFields& l : f.loads()) {
    if (l.found) s.loads.push_back(loaded_copy(l, f.copies));
  }
  std::sort(s.loads.begin(), s.loads.end());
  return r;
}

}  // namespace

const char* report_problem_name(ReportProblem p) {
  switch (p) {
    case ReportProblem::kNone: return "none";
    case ReportProblem::kEmpty: return "empty";
    case ReportProblem::kTruncated: return "truncated";
    case ReportProblem::kMalformed: return "malformed";
    case ReportProblem::kTooLarge: return "too_large";
    case ReportProblem::kUnreadable: return "unreadable";
    case ReportProblem::kNotDoctor: return "not_doctor";
    case ReportProblem::kDoctorFailed: return "doctor_failed";
    case ReportProblem::kOlderSchema: return "older_schema";
    case ReportProblem::kUnknownSchema: return "unknown_schema";
    case ReportProblem::kBadHost: return "bad_host";
    case ReportProblem::kDuplicate: return "duplicate";
  }
  return "unknown";
}

ReportReading read_doctor_report(std::string_view bytes) {
  if (trim(bytes).empty()) return problem(ReportProblem::kEmpty, "no bytes: the command that should have written it did not");
  if (bytes.size() > kMaxReportBytes) {
    return problem(ReportProblem::kTooLarge, "larger than the " + std::to_string(kMaxReportBytes >> 20) +
                                                 " MiB a doctor report may be: not read");
  }
  DoctorFields fields;
  bool parsed = nlohmann::json::sax_parse(bytes.begin(), bytes.end(), &fields);
  if (fields.top_not_object) return problem(ReportProblem::kNotDoctor, "not a doctor report: the JSON is not an object");
  if (!parsed) {
    if (fields.error_position >= bytes.size()) {
      return problem(ReportProblem::kTruncated, "the JSON ends after " + std::to_string(bytes.size()) +
                                                    " bytes, inside the document (a copy cut short or a run that was killed)");
    }
    return problem(ReportProblem::kMalformed, "not valid JSON at byte " + std::to_string(fields.error_position) +
                                                  " (two outputs interleaved? gather one file per host)");
  }
  return judge(fields);
}

std::string describe_loads(const std::vector<FleetLoadedCopy>& loads) {
  if (loads.empty()) return "no cuDNN";
  std::string out;
  for (const FleetLoadedCopy& l : loads) {
    if (!out.empty()) out += " + ";
    out += "cuDNN " + (l.version.empty() ? std::string("of unknown version") : l.version);
    out += l.cuda_major > 0 ? " for CUDA " + std::to_string(l.cuda_major) : std::string(" for an unknown CUDA");
    out += std::string(" (") + package_form_name(l.form) + ")";
  }
  return out;
}

}  // namespace cudnnup
