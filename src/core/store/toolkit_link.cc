#include "store/toolkit_link.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "base/json_text.h"
#include "base/paths.h"
#include "base/relative_path.h"
#include "facts/cudnn_files.h"
#include "store/current_link.h"
#include "store/version_spec.h"

namespace cudnnup {
namespace {

using nlohmann::json;

constexpr const char* kAsideDir = ".cudnnup-aside";
constexpr const char* kNewSuffix = ".cudnnup-new";
constexpr size_t kMaxManifestBytes = 4 << 20;

// One pair of dirs: where the store version keeps a kind of file, and where the toolkit does.
struct DirPair {
  std::string store_sub;    // "lib", "include", "bin", "lib/x64"
  std::string toolkit_sub;  // "lib64", "include", ...
};

// Names that stay the same across versions of one major, so a link to current/<name> keeps
// working after `cudnnup use`: libcudnn_ops.so, libcudnn_ops.so.9, libcudnn_ops_static.a,
// cudnn_ops.h, cudnn_ops64_9.dll, cudnn_ops.lib. Not libcudnn_ops.so.9.19.0.
bool is_stable_name(const std::string& name) {
  auto file = parse_cudnn_file_name(name);
  return file && (file->kind != CudnnFileKind::kRuntime || file->soname);
}

std::string current_prefix(const std::string& store) { return store + "/current/"; }

json plan_to_json(const LinkPlan& plan, const std::string& time, const std::string& status) {
  json j = {{"schema", 2}, {"cuda_dir", plan.cuda_dir}, {"store", plan.store}, {"version", plan.version},
            {"time", time}, {"status", status}, {"links", json::array()}, {"aside", json::array()}};
  for (const auto& l : plan.links) j["links"].push_back({{"link", l.link}, {"target", l.target}});
  for (const auto& a : plan.aside) j["aside"].push_back({{"from", a.from}, {"to", a.to}});
  return j;
}

Status write_manifest(FileSystem& fs, const LinkPlan& plan, const std::string& time, const std::string& status) {
  std::string tmp = plan.manifest + ".tmp";
  if (auto s = fs.write_private_file(tmp, dump_json(plan_to_json(plan, time, status), 2) + "\n", true); !s) return s;
  return fs.rename(tmp, plan.manifest);
}

bool is_our_link(const FileSystem& fs, const std::string& cuda_dir, const LinkItem& item) {
  auto info = fs.lstat_below(cuda_dir, item.link);
  if (!info || info->type != FileType::kSymlink) return false;
  auto target = fs.read_link_below(cuda_dir, item.link);
  return target && *target == item.target;
}

Result<std::string> real_dir(const FileSystem& fs, const std::string& raw) {
  auto real = fs.canonical(raw);
  if (!real || !fs.is_dir(*real)) return make_error(ErrorCode::kNotFound, raw + " is not a directory", raw);
  return paths::normalize(*real);
}

// The toolkit's subdirectories by their real place inside it: lib64 -> lib when lib64 is a link.
Result<std::string> real_sub(const FileSystem& fs, const std::string& cuda_dir, const std::string& sub) {
  std::string dir = cuda_dir + "/" + sub;
  if (!fs.is_dir(dir)) {
    return make_error(ErrorCode::kNotFound, cuda_dir + " does not look like a CUDA toolkit: it has no " + sub + "/ directory",
                      cuda_dir);
  }
  auto real = fs.canonical(dir);
  std::string rel = real ? relative_below(cuda_dir, *real) : std::string();
  if (rel.empty()) {
    return make_error(ErrorCode::kUnsupported,
                      dir + " leads outside the toolkit" + (real ? " (to " + *real + ")" : std::string()) +
                          "; cudnnup links only inside it",
                      dir);
  }
  return rel;
}

std::vector<DirPair> dir_pairs(const FileSystem& fs, const std::string& cuda_dir, bool windows) {
  if (windows) return {{"bin", "bin"}, {"lib/x64", "lib/x64"}, {"include", "include"}};
  return {{"lib", fs.is_dir(cuda_dir + "/lib64") ? "lib64" : "lib"}, {"include", "include"}};
}

// Adds, for one pair of dirs, the links to make and the toolkit's own cuDNN files to move aside.
Status plan_pair(const FileSystem& fs, const std::string& version_dir, const std::string& store_sub,
                 const std::string& sub, LinkPlan& plan) {
  std::vector<LinkItem> wanted;
  if (auto names = fs.list_dir(version_dir + "/" + store_sub); names) {
    for (const auto& e : *names) {
      if (e.type == FileType::kDirectory || !is_stable_name(e.name)) continue;
      wanted.push_back({sub + "/" + e.name, current_prefix(plan.store) + store_sub + "/" + e.name});
    }
  }
  std::sort(wanted.begin(), wanted.end(), [](const auto& a, const auto& b) { return a.link < b.link; });
  for (const auto& w : wanted) {
    if (!is_our_link(fs, plan.cuda_dir, w)) plan.links.push_back(w);
  }
  auto existing = fs.list_dir_below(plan.cuda_dir, sub);
  if (!existing) return existing.error();
  for (const auto& e : *existing) {
    if (e.type == FileType::kDirectory || !parse_cudnn_file_name(e.name)) continue;
    std::string rel = sub + "/" + e.name;
    bool ours = std::any_of(wanted.begin(), wanted.end(),
                            [&](const LinkItem& w) { return w.link == rel && is_our_link(fs, plan.cuda_dir, w); });
    if (!ours) plan.aside.push_back({rel, std::string(kAsideDir) + "/" + rel});
  }
  return ok_status();
}

const AsideItem* displaced_by(const LinkPlan& plan, const std::string& link) {
  for (const auto& a : plan.aside) {
    if (a.from == link) return &a;
  }
  return nullptr;
}

Status apply_steps(FileSystem& fs, const LinkPlan& plan) {
  const std::string& root = plan.cuda_dir;
  for (const auto& a : plan.aside) {
    if (auto s = fs.make_dirs_below(root, paths::parent(a.to)); !s) return s;
  }
  // Names we link over: make the new link aside, move the old file out, rename the link in.
  for (const auto& l : plan.links) {
    std::string fresh = l.link + kNewSuffix;
    if (fs.exists_below(root, fresh)) {
      if (auto s = fs.remove_below(root, fresh); !s) return s;
    }
    if (auto s = fs.symlink_below(root, l.target, fresh); !s) return s;
    if (const AsideItem* a = displaced_by(plan, l.link)) {
      if (auto info = fs.lstat_below(root, a->from); info && info->type == FileType::kSymlink) {
        // A link is copied aside, so the rename below replaces it with no moment in between.
        auto old_target = fs.read_link_below(root, a->from);
        if (!old_target) return old_target.error();
        if (auto s = fs.symlink_below(root, *old_target, a->to); !s) return s;
      } else if (auto s = fs.rename_below(root, a->from, a->to); !s) {
        return s;
      }
    }
    if (auto s = fs.rename_below(root, fresh, l.link); !s) return s;
  }
  // The toolkit's other cuDNN files (libcudnn.so.9.19.0 and the like) go aside too.
  for (const auto& a : plan.aside) {
    bool linked_over = std::any_of(plan.links.begin(), plan.links.end(), [&](const LinkItem& l) { return l.link == a.from; });
    if (linked_over || !fs.exists_below(root, a.from)) continue;
    if (auto s = fs.rename_below(root, a.from, a.to); !s) return s;
  }
  return ok_status();
}

Status bad_manifest(const std::string& path, const std::string& why) {
  return make_error(ErrorCode::kCorrupt,
                    "the link manifest " + path + " was not acted on: " + why +
                        "; put the toolkit's files back from its .cudnnup-aside/ folder by hand and remove it",
                    path);
}

Status check_manifest(const LinkPlan& plan, const std::string& cuda_dir, const std::string& status, const std::string& time) {
  const std::string& path = plan.manifest;
  if (plan.cuda_dir != cuda_dir) return bad_manifest(path, "it was written for " + plan.cuda_dir + ", not " + cuda_dir);
  if (!paths::is_absolute(plan.store) || paths::normalize(plan.store) != plan.store) return bad_manifest(path, "'store' is not an absolute path");
  if (!plan.version.empty() && !StoreVersionId::parse(plan.version)) return bad_manifest(path, "'version' is not a version id");
  if (status != "in-progress" && status != "done") return bad_manifest(path, "'status' is unknown");
  for (unsigned char c : time) {
    if (c < 0x20 || c == 0x7f) return bad_manifest(path, "'time' holds control characters");
  }
  std::string prefix = current_prefix(plan.store);
  for (const auto& l : plan.links) {
    if (auto s = check_relative_path(l.link); !s) return bad_manifest(path, "a link " + s.error().message);
    if (l.target.compare(0, prefix.size(), prefix) != 0 || !check_relative_path(l.target.substr(prefix.size()))) {
      return bad_manifest(path, "the target '" + l.target + "' is not inside " + prefix);
    }
  }
  for (const auto& a : plan.aside) {
    if (auto s = check_relative_path(a.from); !s) return bad_manifest(path, "an aside entry " + s.error().message);
    if (auto s = check_relative_path(a.to); !s) return bad_manifest(path, "an aside entry " + s.error().message);
    if (a.to.compare(0, std::string(kAsideDir).size() + 1, std::string(kAsideDir) + "/") != 0) {
      return bad_manifest(path, "'" + a.to + "' is outside " + kAsideDir + "/");
    }
  }
  return ok_status();
}

}  // namespace

std::string link_manifest_path(const std::string& cuda_dir) { return paths::join(cuda_dir, ".cudnnup-link.json"); }

Result<LinkPlan> plan_toolkit_link(const FileSystem& fs, const StoreLayout& layout, const std::string& raw_dir,
                                   bool windows) {
  auto dir = real_dir(fs, raw_dir);
  if (!dir) return dir.error();
  LinkPlan plan;
  plan.cuda_dir = *dir;
  plan.windows = windows;
  plan.manifest = link_manifest_path(plan.cuda_dir);
  plan.store = paths::normalize(fs.canonical(layout.root).value_or(layout.root));
  if (plan.cuda_dir == plan.store || plan.cuda_dir.starts_with(plan.store + "/")) {
    return make_error(ErrorCode::kUsage,
                      raw_dir + " is inside the cudnnup store (" + plan.store +
                          "); link a CUDA toolkit, never the store's `current` or a version directory",
                      raw_dir);
  }
  if (fs.exists(plan.manifest)) {
    return with_fix(make_error(ErrorCode::kConflict, plan.cuda_dir + " is already linked (" + plan.manifest + "); undo it first:",
                               plan.manifest),
                    {fix::cudnnup({"link", "--undo", "--into", paths::to_native(plan.cuda_dir, windows)})});
  }
  if (auto kept = fs.list_dir_below(plan.cuda_dir, kAsideDir); kept && !kept->empty()) {
    return make_error(ErrorCode::kConflict,
                      plan.cuda_dir + "/" + kAsideDir + " still holds files an earlier `cudnnup link --undo` kept aside; "
                      "move them back or away first",
                      plan.cuda_dir + "/" + kAsideDir);
  }
  std::vector<std::pair<DirPair, std::string>> subs;
  for (const auto& p : dir_pairs(fs, plan.cuda_dir, windows)) {
    auto sub = real_sub(fs, plan.cuda_dir, p.toolkit_sub);
    if (!sub) return sub.error();
    subs.emplace_back(p, *sub);
  }
  auto current = read_current(fs, layout);
  if (!current) return current.error();
  if (!*current) {
    return make_error(ErrorCode::kNotFound,
                      "the store has no `current` link for the toolkit's links to point through: `cudnnup use VERSION` "
                      "makes it (where it could not, it said why)");
  }
  plan.version = **current;
  for (const auto& [pair, sub] : subs) {
    if (auto s = plan_pair(fs, layout.version_dir(plan.version), pair.store_sub, sub, plan); !s) return s.error();
  }
  std::sort(plan.aside.begin(), plan.aside.end(), [](const auto& a, const auto& b) { return a.from < b.from; });
  return plan;
}

Status apply_toolkit_link(FileSystem& fs, const LinkPlan& plan, const std::string& time, bool* rolled_back) {
  if (rolled_back) *rolled_back = true;
  // The manifest comes first: whatever happens next, the undo knows what to put back.
  if (auto s = write_manifest(fs, plan, time, "in-progress"); !s) {
    if (fs.exists(plan.manifest + ".tmp")) (void)fs.remove(plan.manifest + ".tmp");
    return s;
  }
  Status done = apply_steps(fs, plan);
  if (done) done = write_manifest(fs, plan, time, "done");
  if (!done) {
    auto undone = undo_toolkit_link(fs, plan.cuda_dir);
    if (rolled_back) *rolled_back = undone.ok() && undone->kept.empty();
  }
  return done;
}

Result<LinkPlan> read_link_manifest(const FileSystem& fs, const std::string& cuda_dir, bool acting, std::string* status) {
  std::string path = link_manifest_path(cuda_dir);
  auto file = fs.read_regular(path, kMaxManifestBytes, /*follow_link=*/false);
  if (!file) {
    if (file.error().code == ErrorCode::kNotFound) {
      return make_error(ErrorCode::kNotFound, cuda_dir + " is not linked by cudnnup (no " + path + ")", path);
    }
    return bad_manifest(path, file.error().message).error();
  }
  if (acting && (file->info.other_owner || file->info.others_may_write)) {
    return make_error(ErrorCode::kPermission,
                      "the link manifest " + path + " was not acted on: " +
                          (file->info.other_owner ? "it belongs to another user" : "others may write to it") +
                          "; run cudnnup as its owner (sudo if root linked it)",
                      path);
  }
  json j = json::parse(file->bytes, nullptr, false);
  LinkPlan plan;
  std::string state, time;
  try {
    if (!j.is_object()) return bad_manifest(path, "it is not a JSON object").error();
    if (j.value("schema", 1) != 2) return bad_manifest(path, "it was written by an older cudnnup (schema 1)").error();
    plan.cuda_dir = j.at("cuda_dir").get<std::string>();
    plan.store = j.at("store").get<std::string>();
    plan.manifest = path;
    plan.version = j.value("version", "");
    state = j.at("status").get<std::string>();
    time = j.value("time", "");
    for (const auto& l : j.at("links")) plan.links.push_back({l.at("link").get<std::string>(), l.at("target").get<std::string>()});
    for (const auto& a : j.at("aside")) plan.aside.push_back({a.at("from").get<std::string>(), a.at("to").get<std::string>()});
  } catch (const json::exception& e) {
    return bad_manifest(path, std::string("it is damaged (") + e.what() + ")").error();
  }
  if (auto s = check_manifest(plan, cuda_dir, state, time); !s) return s.error();
  if (status) *status = state;
  return plan;
}

Result<UnlinkReport> undo_toolkit_link(FileSystem& fs, const std::string& raw_dir) {
  auto dir = real_dir(fs, raw_dir);
  if (!dir) return dir.error();
  const std::string& root = *dir;
  std::string manifest = link_manifest_path(root);
  UnlinkReport report;
  if (!fs.exists(manifest) && fs.exists(manifest + ".tmp")) {
    // Apply stopped while writing the manifest, before it changed anything else.
    if (auto s = fs.remove(manifest + ".tmp"); !s) return s.error();
    report.plan = LinkPlan{root, "", manifest, "", {}, {}};
    return report;
  }
  auto read = read_link_manifest(fs, root, /*acting=*/true);
  if (!read) return read.error();
  report.plan = *read;
  const LinkPlan& plan = report.plan;
  for (const auto& l : plan.links) {
    std::string fresh = l.link + kNewSuffix;
    if (fs.exists_below(root, fresh)) {
      if (auto s = fs.remove_below(root, fresh); !s) return s.error();
    }
  }
  // Files come back first: a rename over our link swaps them in one step. Files nobody links
  // over come back before those that replace our links, so a toolkit link such as
  // libcudnn.so.9 -> libcudnn.so.9.1.0 never dangles on the way.
  std::vector<AsideItem> order = plan.aside;
  std::stable_partition(order.begin(), order.end(), [&](const AsideItem& a) {
    return std::none_of(plan.links.begin(), plan.links.end(), [&](const LinkItem& l) { return l.link == a.from; });
  });
  std::vector<std::string> handled;  // toolkit paths restored or kept
  for (const auto& a : order) {
    if (!fs.exists_below(root, a.to)) continue;
    bool ours_there = std::any_of(plan.links.begin(), plan.links.end(),
                                  [&](const LinkItem& l) { return l.link == a.from && is_our_link(fs, root, l); });
    if (fs.exists_below(root, a.from) && !ours_there) {
      // Apply stopped after copying a link aside but before replacing it: the copy is redundant.
      // Anything else there was put there by the user: keep theirs, and the original aside.
      auto here = fs.read_link_below(root, a.from), there = fs.read_link_below(root, a.to);
      if (here && there && *here == *there) {
        if (auto s = fs.remove_below(root, a.to); !s) return s.error();
      } else {
        report.kept.push_back({root + "/" + a.from, root + "/" + a.to, "changed since `cudnnup link`; the original stays aside"});
      }
      handled.push_back(a.from);
      continue;
    }
    if (auto s = fs.rename_below(root, a.to, a.from); !s) return s.error();
    report.restored.push_back(root + "/" + a.from);
    handled.push_back(a.from);
  }
  for (const auto& l : plan.links) {
    if (is_our_link(fs, root, l)) {
      if (auto s = fs.remove_below(root, l.link); !s) return s.error();
      report.removed.push_back(root + "/" + l.link);
    } else if (fs.exists_below(root, l.link) && std::find(handled.begin(), handled.end(), l.link) == handled.end() &&
               !displaced_by(plan, l.link)) {
      // A name that did not exist before `link` (nothing of the toolkit's was displaced there):
      // what is there now is the user's. (Where something was displaced and is no longer aside,
      // the toolkit's original is in place: the link was never made over it.)
      report.kept.push_back({root + "/" + l.link, "", "changed since `cudnnup link`"});
    }
  }
  // Empty aside dirs go too (best effort: a dir holding kept originals stays).
  std::vector<std::string> dirs;
  for (const auto& a : plan.aside) {
    for (std::string d = paths::parent(a.to); d.starts_with(kAsideDir); d = paths::parent(d)) {
      dirs.push_back(d);
      if (d == kAsideDir) break;
    }
  }
  std::sort(dirs.begin(), dirs.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
  for (const auto& d : dirs) {
    if (auto listing = fs.list_dir_below(root, d); listing && listing->empty()) (void)fs.remove_below(root, d);
  }
  if (fs.exists(manifest + ".tmp")) {
    if (auto s = fs.remove(manifest + ".tmp"); !s) return s.error();
  }
  if (auto s = fs.remove(manifest); !s) return s.error();
  return report;
}

Status link_toolkit(FileSystem& fs, const StoreLayout& layout, StoreState& state, const LinkPlan& plan,
                    const std::string& time) {
  bool had_state = fs.exists(layout.state_file());
  StoreState next = state;
  next.links.erase(std::remove_if(next.links.begin(), next.links.end(), [&](const auto& l) { return l.cuda_dir == plan.cuda_dir; }),
                   next.links.end());
  next.links.push_back({plan.cuda_dir, "linking"});
  if (auto s = save_state(fs, layout, next); !s) return s;
  bool rolled_back = false;
  if (auto s = apply_toolkit_link(fs, plan, time, &rolled_back); !s) {
    // Undone in the toolkit: the store forgets it again. Otherwise "linking" stays for recovery.
    if (rolled_back) (void)restore_state(fs, layout, state, had_state);
    if (rolled_back) return make_error(s.error().code, s.error().message + "; nothing was changed", s.error().path);
    return with_fix(make_error(s.error().code, s.error().message + "; undoing also failed: put the toolkit back with", s.error().path),
                    {fix::cudnnup({"link", "--undo", "--into", paths::to_native(plan.cuda_dir, plan.windows)})});
  }
  next.link_of(plan.cuda_dir)->status = "linked";
  if (auto s = save_state(fs, layout, next); !s) return s;
  state = std::move(next);
  return ok_status();
}

Result<UnlinkReport> unlink_toolkit(FileSystem& fs, const StoreLayout& layout, StoreState& state, const std::string& cuda_dir) {
  StoreState next = state;
  if (LinkedToolkit* entry = next.link_of(cuda_dir)) {
    entry->status = "unlinking";
    if (auto s = save_state(fs, layout, next); !s) return s.error();
    state = next;
  }
  auto report = undo_toolkit_link(fs, cuda_dir);
  if (!report) return report.error();
  if (next.link_of(cuda_dir)) {
    next.links.erase(std::remove_if(next.links.begin(), next.links.end(), [&](const auto& l) { return l.cuda_dir == cuda_dir; }),
                     next.links.end());
    if (auto s = save_state(fs, layout, next); !s) return s.error();
    state = std::move(next);
  }
  return report;
}

Result<std::string> recover_toolkit_link(FileSystem& fs, const StoreLayout& layout, StoreState& state,
                                         const std::string& cuda_dir) {
  LinkedToolkit* entry = state.link_of(cuda_dir);
  if (!entry || entry->status == "linked") return std::string();
  std::string line;
  if (entry->status == "linking") {
    std::string status;
    auto plan = read_link_manifest(fs, cuda_dir, /*acting=*/true, &status);
    if (plan && status == "done") {
      StoreState next = state;
      next.link_of(cuda_dir)->status = "linked";
      if (auto s = save_state(fs, layout, next); !s) return s.error();
      state = std::move(next);
      return "finished linking " + cuda_dir + ", interrupted after its last change";
    }
    bool manifest_there = fs.exists(link_manifest_path(cuda_dir)) || fs.exists(link_manifest_path(cuda_dir) + ".tmp");
    if (manifest_there) {
      auto undone = undo_toolkit_link(fs, cuda_dir);
      if (!undone) return undone.error();
      line = "rolled back an interrupted link of " + cuda_dir + " to the store";
    }
  } else {  // "unlinking"
    if (fs.exists(link_manifest_path(cuda_dir))) {
      auto undone = undo_toolkit_link(fs, cuda_dir);
      if (!undone) return undone.error();
    }
    line = "finished an interrupted undo of the link of " + cuda_dir + " to the store";
  }
  StoreState next = state;
  next.links.erase(std::remove_if(next.links.begin(), next.links.end(), [&](const auto& l) { return l.cuda_dir == cuda_dir; }),
                   next.links.end());
  if (auto s = save_state(fs, layout, next); !s) return s.error();
  state = std::move(next);
  return line;
}

std::vector<std::string> links_that_would_dangle(const FileSystem& fs, const StoreLayout& layout, const StoreState& state,
                                                 const std::optional<std::string>& version) {
  std::vector<std::string> out;
  for (const auto& t : state.links) {
    auto plan = read_link_manifest(fs, t.cuda_dir, /*acting=*/false);
    if (!plan) continue;  // gone or unreadable: nothing of ours to keep working
    std::string prefix = current_prefix(plan->store);
    for (const auto& l : plan->links) {
      std::string rest = l.target.substr(prefix.size());
      if (!version || !fs.exists(layout.version_dir(*version) + "/" + rest)) out.push_back(t.cuda_dir + "/" + l.link + " -> " + l.target);
    }
  }
  return out;
}

}  // namespace cudnnup
