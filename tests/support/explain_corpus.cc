#include "support/explain_corpus.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/environment.h"
#include "base/strings.h"
#include "diagnose/checks.h"
#include "facts/cudnn_files.h"
#include "facts/finding_ids.h"
#include "facts/rules.h"

namespace cudnnup::testing {
namespace {

std::string trimmed(std::string_view s) { return std::string(trim(s)); }

// "new:cudnn_newer_than_built (two majors installed, ...)" -> "cudnn_newer_than_built".
std::string id_of(std::string text) {
  text = trimmed(text);
  if (text.starts_with("new:")) text = text.substr(4);
  size_t end = text.find_first_of(" (,");
  return trimmed(text.substr(0, end));
}

void read_header(CorpusLog& log, const std::string& key, const std::string& value) {
  if (key == "source") log.source = value;
  else if (key == "resolution") log.resolution = value;
  else if (key == "machine") log.machine = value;
  else if (key == "fixture") log.fixture = value;
  else if (key == "holdout") log.holdout = value == "yes";
  else if (key == "cause") log.cause = id_of(value);
  else if (key == "expect") {
    for (const auto& id : split(value, ',')) {
      if (!trimmed(id).empty()) log.expect.push_back(id_of(id));
    }
  } else if (key == "known_miss") {
    for (const auto& mode : split(value.substr(0, value.find(':')), ',')) log.known_miss.push_back(trimmed(mode));
  }
}

CorpusLog read_log(const std::filesystem::path& path) {
  CorpusLog log;
  log.name = path.filename().string();
  std::ifstream in(path, std::ios::binary);
  std::string line;
  bool body = false;
  while (std::getline(in, line)) {
    if (!body && line.rfind("#@ ", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) read_header(log, trimmed(line.substr(3, colon - 3)), trimmed(line.substr(colon + 1)));
      continue;
    }
    body = true;
    log.text += line + "\n";
  }
  return log;
}

Version version_or_empty(const std::string& text) {
  auto v = Version::parse(text);
  return v ? *v : Version{};
}

// The newest CUDA a driver runs, by rules.json's driver_minimums (as doctor would read it from the driver).
Version cuda_for_driver(const Version& driver, bool windows) {
  Version best;
  for (const auto& row : builtin_rules().driver_minimums) {
    const Version& min = windows ? row.windows_driver : row.linux_driver;
    if (min.known() && min <= driver && best < row.cuda) best = row.cuda;
  }
  return best;
}

std::string found_via(const std::string& via, const std::string& dir) {
  if (via == "ldcache") return "ld.so.cache";
  if (via == "ldpath") return "LD_LIBRARY_PATH";
  if (via == "path") return "PATH";
  if (via == "system") return "system library directory";
  if (via == "toolkit") return "toolkit " + dir;
  if (via == "pip") return "python site-packages";
  if (via == "conda") return "conda env";
  if (via == "venv") return "venv env";
  return "application directory";
}

// The words after the position: a path may hold spaces (C:/Program Files/...).
std::string rest(const std::vector<std::string>& words, size_t from) {
  std::string out;
  for (size_t i = from; i < words.size(); ++i) out += (i > from ? " " : "") + words[i];
  return out;
}

Result<CudnnCopy> fixture_copy(const std::vector<std::string>& words, bool windows) {
  if (words.size() < 4) return make_error(ErrorCode::kUsage, "cudnn= needs VERSION cuN VIA [lacks=a,b] [devlink] PATH");
  CudnnCopy c;
  c.library_version = version_or_empty(words[0]);
  c.cuda_major = words[1].starts_with("cu") ? std::atoi(words[1].c_str() + 2) : 0;
  std::vector<std::string> lacks;
  bool devlink = false;
  size_t i = 3;
  for (; i < words.size(); ++i) {
    if (words[i].starts_with("lacks=")) lacks = split(words[i].substr(6), ',');
    else if (words[i] == "devlink") devlink = true;
    else break;
  }
  c.lib_dir = c.root = rest(words, i);
  if (c.lib_dir.empty()) return make_error(ErrorCode::kUsage, "cudnn= needs a PATH");
  c.found_via = {found_via(words[2], c.lib_dir)};
  std::vector<std::string> components = builtin_rules().expected_components(c.library_version);
  if (components.empty()) components = {"cudnn"};  // cuDNN 7 and older: one library
  for (const auto& comp : components) {
    if (std::find(lacks.begin(), lacks.end(), comp) != lacks.end()) continue;
    CudnnLibrary lib;
    lib.component = comp;
    lib.major = c.major();
    lib.path = c.lib_dir + "/" + cudnn_library_file_name(comp, c.major(), windows);
    c.libraries.push_back(lib);
  }
  if (devlink && !windows) {
    CudnnLibrary link;
    link.component = "cudnn";
    link.path = c.lib_dir + "/" + cudnn_dev_link_name("cudnn");
    link.is_link = true;
    c.libraries.push_back(link);
  }
  return c;
}

Status apply_item(Report& r, const std::string& key, const std::string& value) {
  std::vector<std::string> words;
  std::istringstream in(value);
  for (std::string w; in >> w;) words.push_back(w);
  bool windows = r.os == "windows";
  if (key == "os") {
    r.os = value;
  } else if (key == "driver") {
    r.driver.present = value != "none";
    r.driver.source = "fixture";
    if (value != "none" && value != "?") {
      r.driver.version = version_or_empty(value);
      r.driver.version_text = value;
      r.driver.cuda_version = cuda_for_driver(r.driver.version, windows);
    }
  } else if (key == "gpu") {
    Gpu g;
    g.index = int(r.driver.gpus.size());
    if (!words.empty()) g.compute_capability = version_or_empty(words[0]);
    if (words.size() > 1) g.memory_bytes = uint64_t(std::atoll(words[1].c_str())) << 20;
    for (size_t i = 2; i < words.size(); ++i) g.name += (i > 2 ? " " : "") + words[i];
    if (g.name.empty()) g.name = "GPU " + std::to_string(g.index);
    r.driver.gpus.push_back(g);
  } else if (key == "toolkit") {
    if (words.size() < 2) return make_error(ErrorCode::kUsage, "toolkit= needs VERSION PATH");
    Toolkit t;
    t.version = version_or_empty(words[0]);
    t.root = rest(words, 1);
    r.toolkits.push_back(t);
  } else if (key == "cudnn") {
    auto c = fixture_copy(words, windows);
    if (!c) return c.error();
    r.copies.push_back(std::move(*c));
  } else if (key == "zlibwapi") {
    Finding f;
    f.id = value == "x86" ? finding_id::kWindowsZlibwapiWrongMachine : finding_id::kWindowsZlibwapiMissing;
    f.severity = Severity::kError;
    f.subject = "zlibwapi.dll";
    f.title = "zlibwapi.dll is " + value + " (fixture)";
    r.findings.push_back(f);
  } else {
    return make_error(ErrorCode::kUsage, "unknown fixture key '" + key + "'");
  }
  return Ok{};
}

// doctor's checks of the records, as `cudnnup doctor` runs them on a real machine.
void add_doctor_findings(Report& r) {
  Environment env;
  env.os = r.os == "windows" ? OsKind::kWindows : OsKind::kLinux;
  const Rules& rules = builtin_rules();
  auto add = [&r](std::vector<Finding> found) { r.findings.insert(r.findings.end(), found.begin(), found.end()); };
  add(check_driver(r, rules, env));
  add(check_toolkits(r, rules, env));
  for (const auto& c : r.copies) add(check_copy(c, r, rules, env));
  add(check_copies_together(r, env));
}

}  // namespace

std::string corpus_dir() { return std::string(CUDNNUP_SOURCE_DIR) + "/tests/data/explain/corpus"; }

std::vector<CorpusLog> load_corpus() {
  std::vector<CorpusLog> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(corpus_dir(), ec)) return out;
  for (const auto& f : std::filesystem::directory_iterator(corpus_dir())) {
    if (f.path().extension() == ".log") out.push_back(read_log(f.path()));
  }
  std::sort(out.begin(), out.end(), [](const CorpusLog& a, const CorpusLog& b) { return a.name < b.name; });
  return out;
}

Result<std::optional<Report>> fixture_report(const std::string& fixture) {
  if (trimmed(fixture).starts_with("unknown")) return std::optional<Report>();
  Report r;
  r.os = "linux";
  r.searched_dirs = {"/usr/lib/x86_64-linux-gnu", "/usr/local/cuda/lib64"};
  for (const auto& item : split(fixture, ';')) {
    std::string kv = trimmed(item);
    if (kv.empty()) continue;
    size_t eq = kv.find('=');
    if (eq == std::string::npos) return make_error(ErrorCode::kUsage, "fixture item without '=': " + kv);
    if (auto st = apply_item(r, trimmed(kv.substr(0, eq)), trimmed(kv.substr(eq + 1))); !st) return st.error();
  }
  add_doctor_findings(r);
  return std::optional<Report>(std::move(r));
}

}  // namespace cudnnup::testing
