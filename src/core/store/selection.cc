#include "store/selection.h"

#include <cctype>

#include "base/paths.h"
#include "base/strings.h"

namespace cudnnup {
namespace {

// What a message may quote of a pin file's line. A spec is short and made of letters, digits and
// ". + _ -" (spaces shown too: "cudnn nine"); anything else (the first line of another file reached through a link, escape
// sequences, binary) is described, never echoed.
std::string shown_line(const std::string& line) {
  bool plain = line.size() <= 40;
  for (char c : line) {
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || std::string_view(".+_- ").find(c) != std::string_view::npos);
  }
  if (plain) return "says '" + line + "'";
  return "holds a line of " + std::to_string(line.size()) + " bytes (not shown)";
}

}  // namespace

bool is_system_selection(std::string_view text) { return trim(text) == kSystemSelection; }

const char* selection_source_name(SelectionSource source) {
  switch (source) {
    case SelectionSource::kCommandLine: return "command-line";
    case SelectionSource::kEnvironment: return "environment";
    case SelectionSource::kPinFile: return "pin-file";
    case SelectionSource::kGlobal: return "global";
    case SelectionSource::kNone: return "none";
  }
  return "none";
}

std::string SelectionRequest::describe() const {
  switch (source) {
    case SelectionSource::kCommandLine: return "set by --version on the command line";
    case SelectionSource::kEnvironment: return std::string("set by the ") + kVersionEnvVar + " environment variable";
    case SelectionSource::kPinFile: return "set by " + origin;
    case SelectionSource::kGlobal: return "the global default, recorded in " + origin;
    case SelectionSource::kNone: return "nothing selected";
  }
  return {};
}

std::string SelectionRequest::short_origin() const {
  switch (source) {
    case SelectionSource::kCommandLine: return "from --version";
    case SelectionSource::kEnvironment: return std::string("from ") + kVersionEnvVar;
    case SelectionSource::kPinFile: return "from " + origin;
    case SelectionSource::kGlobal: return "the global default";
    case SelectionSource::kNone: return "nothing selected";
  }
  return {};
}

std::optional<std::string> find_pin_file(const FileSystem& fs, const std::string& dir) {
  return find_nearest_file(fs, dir, kPinFileName);
}

std::optional<std::string> find_nearest_file(const FileSystem& fs, const std::string& dir, const std::string& name) {
  if (dir.empty()) return std::nullopt;
  std::string at = paths::normalize(dir);
  for (int depth = 0; depth < 256; ++depth) {
    std::string candidate = paths::join(at, name);
    if (fs.exists(candidate)) return candidate;
    std::string up = paths::parent(at);
    if (up == at || up.empty() || up == ".") break;
    at = up;
  }
  return std::nullopt;
}

Result<std::string> read_pin_file(const FileSystem& fs, const std::string& path) {
  // A regular file only (a FIFO would block every prompt under the `init` hook), a link resolved
  // to one, and a small one: a pin holds one spec.
  auto text = fs.read_regular(path, kMaxPinFileBytes, /*follow_link=*/true);
  if (!text) {
    const Error& e = text.error();
    return make_error(e.code == ErrorCode::kNotFound || e.code == ErrorCode::kCorrupt ? ErrorCode::kUsage : e.code,
                      "cannot use the pin file " + path + " (" + e.message + "); it must be a regular file of at most " +
                          std::to_string(kMaxPinFileBytes) + " bytes holding a version spec. Fix it, or remove it to "
                          "fall back to the global default",
                      path);
  }
  const std::string& bytes = text->bytes;
  size_t pos = 0;
  while (pos <= bytes.size()) {
    size_t end = bytes.find('\n', pos);
    if (end == std::string::npos) end = bytes.size();
    std::string line(trim(std::string_view(bytes).substr(pos, end - pos)));
    pos = end + 1;
    if (line.empty() || line[0] == '#') continue;
    if (is_system_selection(line)) return line;
    if (auto spec = VersionSpec::parse(line); !spec) {
      return make_error(ErrorCode::kUsage,
                        "the pin file " + path + " " + shown_line(line) + ", which is not a cuDNN version spec; " +
                            "write one like 9.19 or 9.1+cuda12 (cudnnup use --local VERSION), or system",
                        path);
    }
    return line;
  }
  return make_error(ErrorCode::kUsage,
                    "the pin file " + path + " names no version; write one into it (cudnnup use --local VERSION) "
                    "or remove it",
                    path);
}

std::string pin_file_contents(const std::string& spec) { return spec + "\n"; }

Result<SelectionRequest> find_request(const FileSystem& fs, const Environment& env, const StoreState& state,
                                      const StoreLayout& layout, const std::optional<std::string>& command_line) {
  SelectionRequest request;
  if (command_line) {
    request = {SelectionSource::kCommandLine, *command_line, "--version"};
  } else if (auto value = env.get(kVersionEnvVar); value && !trim(*value).empty()) {
    request = {SelectionSource::kEnvironment, std::string(trim(*value)), kVersionEnvVar};
  } else if (auto pin = find_pin_file(fs, env.cwd)) {
    auto spec = read_pin_file(fs, *pin);
    if (!spec) return spec.error();
    request = {SelectionSource::kPinFile, *spec, *pin};
  } else if (state.global) {
    request = {SelectionSource::kGlobal, *state.global, layout.state_file()};
  }
  if ((request.source == SelectionSource::kCommandLine || request.source == SelectionSource::kEnvironment) &&
      !request.system()) {
    if (auto spec = VersionSpec::parse(request.spec); !spec) {
      return make_error(ErrorCode::kUsage, spec.error().message + " (" + request.describe() + ")");
    }
  }
  return request;
}

Result<Selection> resolve_request(const SelectionRequest& request, const std::vector<StoreVersionId>& installed,
                                  const StoreLayout& layout) {
  if (request.source == SelectionSource::kNone) {
    std::string hint = installed.empty() ? "install one with `cudnnup install VERSION`, then choose it with `cudnnup use VERSION`"
                                         : "choose one with `cudnnup use VERSION` (installed: " +
                                               describe_installed(installed) + ")";
    return make_error(ErrorCode::kNotFound, std::string("no cuDNN version is selected: ") + hint);
  }
  if (request.system()) {
    return make_error(ErrorCode::kNotFound, std::string("no cudnnup version applies: ") + kSystemSelection + " is selected (" +
                                                request.describe() + "), so programs load this machine's own cuDNN copies");
  }
  auto spec = VersionSpec::parse(request.spec);
  if (!spec) return make_error(ErrorCode::kUsage, spec.error().message + " (" + request.describe() + ")", request.origin);
  auto id = resolve_spec(*spec, installed);
  if (!id) {
    return make_error(id.error().code, "cuDNN " + request.spec + " is selected (" + request.describe() + ") but " +
                                           id.error().message,
                      request.source == SelectionSource::kPinFile ? request.origin : std::string());
  }
  return Selection{request, *id, layout.version_dir(id->id)};
}

}  // namespace cudnnup
