#include "store/toolkit_link.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "store/current_link.h"
#include "base/json_reader.h"
#include "base/json_text.h"
#include "base/paths.h"
#include "facts/cudnn_files.h"

namespace cudnnup {
namespace {

using nlohmann::json;

constexpr const char* kAsideDir = ".cudnnup-aside";
constexpr const char* kNewSuffix = ".cudnnup-new";


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

json plan_to_json(const LinkPlan& plan, const std::string& time, const std::string& status) {
  json j = {{"schema", 1}, {"cuda_dir", plan.cuda_dir}, {"version", plan.version}, {"time", time},
            {"status", status}, {"links", json::array()}, {"aside", json::array()}};
  for (const auto& l : plan.links) j["links"].push_back({{"link", l.link}, {"target", l.target}});
  for (const auto& a : plan.aside) j["aside"].push_back({{"from", a.from}, {"to", a.to}});
  return j;
}

Status write_manifest(FileSystem& fs, const LinkPlan& plan, const std::string& time, const std::string& status) {
  std::string tmp = plan.manifest + ".tmp";
  if (auto s = fs.write_file(tmp, dump_json(plan_to_json(plan, time, status), 2) + "\n", true); !s) return s;
  return fs.rename(tmp, plan.manifest);
}

bool is_our_link(const FileSystem& fs, const LinkItem& item) {
  auto info = fs.lstat(item.link);
  if (!info || info->type != FileType::kSymlink) return false;
  auto target = fs.read_link(item.link);
  return target && *target == item.target;
}

}  // namespace

std::string link_manifest_path(const std::string& cuda_dir) { return paths::join(cuda_dir, ".cudnnup-link.json"); }

Result<LinkPlan> plan_toolkit_link(const FileSystem& fs, const StoreLayout& layout, const std::string& raw_dir,
                                   bool windows) {
  std::string cuda_dir = paths::normalize(raw_dir);
  LinkPlan plan;
  plan.cuda_dir = cuda_dir;
  plan.manifest = link_manifest_path(cuda_dir);
  if (!fs.is_dir(cuda_dir)) return make_error(ErrorCode::kNotFound, cuda_dir + " is not a directory", cuda_dir);
  if (fs.exists(plan.manifest)) {
    return make_error(ErrorCode::kConflict,
                      cuda_dir + " is already linked (" + plan.manifest + "); undo it first with `cudnnup link --undo --into " +
                          cuda_dir + "`",
                      plan.manifest);
  }
  std::vector<DirPair> pairs;
  if (windows) {
    pairs = {{"bin", "bin"}, {"lib/x64", "lib/x64"}, {"include", "include"}};
  } else {
    pairs = {{"lib", fs.is_dir(cuda_dir + "/lib64") ? "lib64" : "lib"}, {"include", "include"}};
  }
  for (const auto& p : pairs) {
    if (!fs.is_dir(cuda_dir + "/" + p.toolkit_sub)) {
      return make_error(ErrorCode::kNotFound,
                        cuda_dir + " does not look like a CUDA toolkit: it has no " + p.toolkit_sub + "/ directory", cuda_dir);
    }
  }
  auto current = read_current(fs, layout);
  if (!current) return current.error();
  if (!*current) {
    return make_error(ErrorCode::kNotFound,
                      "there is no global default to follow yet; choose one with `cudnnup use VERSION` first");
  }
  plan.version = **current;
  std::string version_dir = layout.version_dir(plan.version);

  for (const auto& p : pairs) {
    std::string toolkit_dir = cuda_dir + "/" + p.toolkit_sub;
    std::vector<LinkItem> wanted;
    if (auto names = fs.list_dir(version_dir + "/" + p.store_sub); names) {
      for (const auto& e : *names) {
        if (e.type == FileType::kDirectory || !is_stable_name(e.name)) continue;
        wanted.push_back({toolkit_dir + "/" + e.name, layout.current_link() + "/" + p.store_sub + "/" + e.name});
      }
    }
    std::sort(wanted.begin(), wanted.end(), [](const auto& a, const auto& b) { return a.link < b.link; });
    for (const auto& w : wanted) {
      if (!is_our_link(fs, w)) plan.links.push_back(w);
    }
    auto existing = fs.list_dir(toolkit_dir);
    if (!existing) return existing.error();
    for (const auto& e : *existing) {
      if (e.type == FileType::kDirectory || !parse_cudnn_file_name(e.name)) continue;
      std::string path = toolkit_dir + "/" + e.name;
      bool ours = std::any_of(wanted.begin(), wanted.end(), [&](const LinkItem& w) { return w.link == path && is_our_link(fs, w); });
      if (!ours) plan.aside.push_back({path, cuda_dir + "/" + kAsideDir + "/" + p.toolkit_sub + "/" + e.name});
    }
  }
  std::sort(plan.aside.begin(), plan.aside.end(), [](const auto& a, const auto& b) { return a.from < b.from; });
  return plan;
}

Status apply_toolkit_link(FileSystem& fs, const LinkPlan& plan, const std::string& time) {
  // The manifest comes first: whatever happens next, `link --undo` knows what to put back.
  if (auto s = write_manifest(fs, plan, time, "in-progress"); !s) return s;
  for (const auto& a : plan.aside) {
    if (auto s = fs.make_dirs(paths::parent(a.to)); !s) return s;
  }
  auto displaced = [&](const std::string& link) -> const AsideItem* {
    for (const auto& a : plan.aside) {
      if (a.from == link) return &a;
    }
    return nullptr;
  };
  // Names we link over: make the new link aside, move the old file out, rename the link in.
  for (const auto& l : plan.links) {
    std::string fresh = l.link + kNewSuffix;
    if (fs.exists(fresh)) {
      if (auto s = fs.remove(fresh); !s) return s;
    }
    if (auto s = fs.symlink(l.target, fresh); !s) return s;
    if (const AsideItem* a = displaced(l.link)) {
      if (auto info = fs.lstat(a->from); info && info->type == FileType::kSymlink) {
        // A link is copied aside, so the rename below replaces it with no moment in between.
        auto old_target = fs.read_link(a->from);
        if (!old_target) return old_target.error();
        if (auto s = fs.symlink(*old_target, a->to); !s) return s;
      } else if (auto s = fs.rename(a->from, a->to); !s) {
        return s;
      }
    }
    if (auto s = fs.rename(fresh, l.link); !s) return s;
  }
  // The toolkit's other cuDNN files (libcudnn.so.9.19.0 and the like) go aside too.
  for (const auto& a : plan.aside) {
    bool linked_over = std::any_of(plan.links.begin(), plan.links.end(), [&](const LinkItem& l) { return l.link == a.from; });
    if (linked_over || !fs.exists(a.from)) continue;
    if (auto s = fs.rename(a.from, a.to); !s) return s;
  }
  return write_manifest(fs, plan, time, "done");
}

Result<LinkPlan> undo_toolkit_link(FileSystem& fs, const std::string& raw_dir) {
  std::string cuda_dir = paths::normalize(raw_dir);
  std::string manifest = link_manifest_path(cuda_dir);
  if (!fs.exists(manifest) && fs.exists(manifest + ".tmp")) {
    // Apply stopped while writing the manifest, before it changed anything else.
    if (auto s = fs.remove(manifest + ".tmp"); !s) return s.error();
    return LinkPlan{cuda_dir, manifest, "", {}, {}};
  }
  auto text = fs.read_file(manifest, 4 << 20);
  if (!text) {
    return make_error(ErrorCode::kNotFound, cuda_dir + " is not linked by cudnnup (no " + manifest + ")", manifest);
  }
  JsonReader reader(manifest);
  JsonValue j = reader.parse_object(*text);
  LinkPlan plan;
  plan.cuda_dir = j.required_string("cuda_dir");
  plan.manifest = manifest;
  plan.version = j.string("version");
  for (const char* key : {"links", "aside"}) {
    if (!j.has(key)) j.fail(key, "is missing");
  }
  for (const auto& l : j.array("links")) plan.links.push_back({l.required_string("link"), l.required_string("target")});
  for (const auto& a : j.array("aside")) plan.aside.push_back({a.required_string("from"), a.required_string("to")});
  if (!reader.ok()) {
    return make_error(ErrorCode::kCorrupt, "the link manifest is damaged (" + reader.status().error().message +
                                               "); restore the files in " + cuda_dir + "/" + kAsideDir + " by hand",
                      manifest);
  }
  for (const auto& l : plan.links) {
    std::string fresh = l.link + kNewSuffix;
    if (fs.exists(fresh)) {
      if (auto s = fs.remove(fresh); !s) return s.error();
    }
  }
  // Files come back first: a rename over our link swaps them in one step. Files nobody links
  // over come back before those that replace our links, so a toolkit link such as
  // libcudnn.so.9 -> libcudnn.so.9.1.0 never dangles on the way.
  std::vector<AsideItem> order = plan.aside;
  std::stable_partition(order.begin(), order.end(), [&](const AsideItem& a) {
    return std::none_of(plan.links.begin(), plan.links.end(), [&](const LinkItem& l) { return l.link == a.from; });
  });
  for (const auto& a : order) {
    if (!fs.exists(a.to)) continue;
    bool ours_there = std::any_of(plan.links.begin(), plan.links.end(),
                                  [&](const LinkItem& l) { return l.link == a.from && is_our_link(fs, l); });
    if (fs.exists(a.from) && !ours_there) {
      // Apply stopped after copying a link aside but before replacing it: the copy is redundant.
      // Anything else there was put back by hand: keep theirs, and the aside copy.
      auto here = fs.read_link(a.from), there = fs.read_link(a.to);
      if (here && there && *here == *there) {
        if (auto s = fs.remove(a.to); !s) return s.error();
      }
      continue;
    }
    if (auto s = fs.rename(a.to, a.from); !s) return s.error();
  }
  for (const auto& l : plan.links) {
    if (!is_our_link(fs, l)) continue;
    if (auto s = fs.remove(l.link); !s) return s.error();
  }
  // Empty aside dirs go too (best effort: a dir someone put files into stays).
  std::vector<std::string> dirs;
  for (const auto& a : plan.aside) {
    for (std::string d = paths::parent(a.to); d.size() > cuda_dir.size(); d = paths::parent(d)) dirs.push_back(d);
  }
  std::sort(dirs.begin(), dirs.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
  for (const auto& d : dirs) {
    if (auto listing = fs.list_dir(d); listing && listing->empty()) (void)fs.remove(d);
  }
  if (fs.exists(manifest + ".tmp")) {
    if (auto s = fs.remove(manifest + ".tmp"); !s) return s.error();
  }
  if (auto s = fs.remove(manifest); !s) return s.error();
  return plan;
}

}  // namespace cudnnup
