#include "base/fix.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "base/json_reader.h"

namespace cudnnup {
namespace fix {

namespace {
FixStep command(FixKind kind, std::vector<std::string> argv, std::string note) {
  FixStep s;
  s.kind = kind;
  s.argv = std::move(argv);
  s.note = std::move(note);
  return s;
}
}  // namespace

FixStep cudnnup(std::vector<std::string> args, std::string note) {
  args.insert(args.begin(), "cudnnup");
  return command(FixKind::kCudnnup, std::move(args), std::move(note));
}

FixStep cudnnup_eval(std::vector<std::string> args, std::string note) {
  FixStep s = cudnnup(std::move(args), std::move(note));
  s.eval = true;
  return s;
}

FixStep run(std::vector<std::string> argv, std::string note) { return command(FixKind::kCommand, std::move(argv), std::move(note)); }

FixStep sudo(std::vector<std::string> argv, std::string note) {
  argv.insert(argv.begin(), "sudo");
  return command(FixKind::kSudo, std::move(argv), std::move(note));
}

FixStep set_env(std::string name, std::string value, std::string note) {
  FixStep s;
  s.kind = FixKind::kSetEnv;
  s.name = std::move(name);
  s.value = std::move(value);
  s.note = std::move(note);
  return s;
}

FixStep unset_env(std::string name, std::string note) {
  FixStep s;
  s.kind = FixKind::kUnsetEnv;
  s.name = std::move(name);
  s.note = std::move(note);
  return s;
}

FixStep shell(std::string code, std::string note) {
  FixStep s;
  s.kind = FixKind::kShell;
  s.text = std::move(code);
  s.note = std::move(note);
  return s;
}

FixStep shell_in(ShellDialect dialect, std::string code, std::string note) {
  FixStep s = shell(std::move(code), std::move(note));
  s.dialect = dialect;
  return s;
}

FixStep step(std::string text) {
  FixStep s;
  s.kind = FixKind::kText;
  s.text = std::move(text);
  return s;
}

}  // namespace fix

std::vector<std::vector<std::string>> fix_commands(const std::vector<FixStep>& steps) {
  std::vector<std::vector<std::string>> out;
  for (const auto& s : steps) {
    if (s.is_command()) out.push_back(s.argv);
  }
  return out;
}

namespace {
constexpr std::array<std::string_view, 3> kDialectNames = {"posix", "powershell", "cmd"};
}  // namespace

nlohmann::json fix_step_to_json(const FixStep& s) {
  nlohmann::json j = nlohmann::json::object();
  auto tail = [&](size_t skip) { return std::vector<std::string>(s.argv.begin() + std::min(skip, s.argv.size()), s.argv.end()); };
  switch (s.kind) {
    case FixKind::kCudnnup: j["cudnnup"] = tail(1); break;
    case FixKind::kCommand: j["run"] = s.argv; break;
    case FixKind::kSudo: j["sudo"] = tail(1); break;
    case FixKind::kSetEnv: j["set"] = s.name; j["value"] = s.value; break;
    case FixKind::kUnsetEnv: j["unset"] = s.name; break;
    case FixKind::kShell:
      j["shell"] = s.text;
      if (s.dialect != ShellDialect::kPosix) j["dialect"] = kDialectNames[static_cast<size_t>(s.dialect)];
      break;
    case FixKind::kText: j["step"] = s.text; break;
  }
  if (!s.note.empty()) j["note"] = s.note;
  if (s.eval) j["eval"] = true;
  return j;
}

namespace {
constexpr std::array<std::string_view, 7> kKinds = {"cudnnup", "run", "sudo", "set", "unset", "shell", "step"};
constexpr std::array<std::string_view, 4> kExtras = {"value", "note", "eval", "dialect"};

template <size_t N>
bool one_of(const std::array<std::string_view, N>& names, const std::string& key) {
  return std::find(names.begin(), names.end(), key) != names.end();
}
}  // namespace

FixStep fix_step_from_json(const JsonValue& j) {
  std::string kind;
  for (const auto& [key, value] : j.members()) {
    if (one_of(kKinds, key)) {
      if (!kind.empty()) j.fail(key, "is a second kind of step (the step already is '" + kind + "')");
      kind = key;
    } else if (!one_of(kExtras, key)) {
      j.fail(key, "is not a field of a fix step (cudnnup, run, sudo, set, unset, shell, step; note, value, eval, dialect)");
    }
  }
  FixStep s;
  if (kind == "cudnnup" || kind == "run" || kind == "sudo") {
    std::vector<std::string> words = j.strings(kind);
    if (words.empty() && kind != "cudnnup") j.fail(kind, "must name a program");
    if (kind == "cudnnup") s = fix::cudnnup(std::move(words));
    else if (kind == "run") s = fix::run(std::move(words));
    else s = fix::sudo(std::move(words));
  } else if (kind == "set") {
    s = fix::set_env(j.required_string("set"), j.required_string("value"));
  } else if (kind == "unset") {
    s = fix::unset_env(j.required_string("unset"));
  } else if (kind == "shell") {
    s = fix::shell(j.required_string("shell"));
    std::string dialect = j.string("dialect", "posix");
    auto at = std::find(kDialectNames.begin(), kDialectNames.end(), dialect);
    if (at == kDialectNames.end()) j.fail("dialect", "must be posix, powershell or cmd");
    else s.dialect = static_cast<ShellDialect>(at - kDialectNames.begin());
  } else if (kind == "step") {
    s = fix::step(j.required_string("step"));
  } else {
    j.fail("cudnnup", "a fix step needs one of cudnnup, run, sudo, set, unset, shell, step");
  }
  s.note = j.string("note");
  s.eval = j.boolean("eval", false);
  if (s.eval && s.kind != FixKind::kCudnnup) j.fail("eval", "only a cudnnup step can be evaluated");
  if (kind != "shell" && j.has("dialect")) j.fail("dialect", "only a shell step has a dialect");
  return s;
}

}  // namespace cudnnup
