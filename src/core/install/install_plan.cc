#include "install/install_plan.h"

#include <algorithm>
#include <set>

#include "base/paths.h"

namespace cudnnup {
namespace {

// `path` (inside `root`) relative to it, for the journal and the manifest.
std::string rel(const std::string& root, const std::string& path) { return path.substr(root.size() + 1); }

}  // namespace

std::string store_version_id(const Version& cudnn, int cuda_major) {
  return cudnn.str() + "+cuda" + std::to_string(cuda_major);
}

std::string store_stage_dir(const StoreLayout& store, const std::string& txid) {
  return store.journal_dir() + "/" + txid + ".stage";
}

std::string merge_stage_dir(const ToolkitTarget& t, const std::string& txid) { return t.private_dir() + "/stage-" + txid; }

InstallPlan plan_store_install(const StoreLayout& store, const std::string& txid, const std::vector<ArchiveItem>& items,
                               InstallManifest base) {
  InstallPlan p;
  p.mode = "store";
  p.id = base.id;
  p.target = store.version_dir(base.id);
  p.stage = store_stage_dir(store, txid);
  p.manifest_stage_path = p.stage + "/" + StoreLayout::kManifestName;
  p.manifest = std::move(base);
  p.manifest.mode = "store";
  for (const auto& item : items) {
    p.steps.push_back({"stage", p.target + "/" + item.rel,
                       item.kind == EntryKind::kSymlink ? "-> " + item.link_target
                       : item.kind == EntryKind::kDirectory ? "directory"
                                                            : std::to_string(item.size) + " bytes, sha256 " + item.sha256});
    if (item.kind == EntryKind::kDirectory) continue;
    ManifestFile f;
    f.path = item.rel;
    f.source = item.rel;
    f.kind = item.kind;
    f.size = item.size;
    f.sha256 = item.sha256;
    f.link_target = item.link_target;
    p.manifest.files.push_back(f);
  }
  p.steps.push_back({"write-manifest", p.target + "/" + StoreLayout::kManifestName, "every file with size and sha256"});
  p.steps.push_back({"place", p.target, "one rename of " + p.stage});
  p.journal.id = txid;
  p.journal.root = store.root;
  p.journal.kind = "install-store";
  p.journal.description = "install cuDNN " + p.manifest.cudnn_version + " (CUDA " + p.manifest.cuda_variant + ") into " + p.target;
  p.journal.moves.push_back(Move{rel(store.root, p.stage), rel(store.root, p.target), false});
  p.journal.cleanup.push_back(rel(store.root, p.stage));
  p.journal.sync_dirs.push_back("versions");
  return p;
}

Result<InstallPlan> plan_merge_install(const FileSystem& fs, const ToolkitTarget& t, const std::string& txid,
                                       const std::vector<ArchiveItem>& items, int archive_major, InstallManifest base,
                                       bool move_aside_leftovers) {
  InstallPlan p;
  p.mode = "merge";
  p.id = base.id;
  p.target = t.root;
  p.stage = merge_stage_dir(t, txid);
  std::string backup_dir = t.private_dir() + "/backup-" + txid;
  p.manifest_stage_path = p.stage + ".manifest.json";  // known before staging: the installer's first journal lists it
  p.manifest = std::move(base);
  p.manifest.mode = "merge";
  p.manifest.toolkit_root = t.root;
  p.manifest.backup_dir = rel(t.root, backup_dir);
  Journal& j = p.journal;
  j.id = txid;
  j.root = t.root;
  j.kind = "install-merge";
  j.description = "install cuDNN " + p.manifest.cudnn_version + " (CUDA " + p.manifest.cuda_variant + ") into the toolkit " + t.root;

  if (fs.exists(t.manifest_path())) {
    return with_fix(make_error(ErrorCode::kConflict,
                               "cudnnup already installed cuDNN into " + t.root + " (" + t.manifest_path() +
                                   "); undo that first, then install again:",
                               t.manifest_path()),
                    {fix::cudnnup({"uninstall", "--into", paths::to_native(t.root, t.windows)})});
  }
  // The private dir is listed first so a roll back removes it again when it was created for us.
  if (!fs.exists(t.private_dir())) j.new_dirs.push_back(rel(t.root, t.private_dir()));

  std::set<std::string> new_dirs;
  std::set<std::string> destinations;
  for (const auto& item : items) {
    if (item.kind == EntryKind::kDirectory) continue;
    std::string rel_dest = merge_destination(item.rel, t.windows, t.lib_dir);
    if (rel_dest.empty()) continue;  // LICENSE and friends stay out of the toolkit
    // The toolkit's own links (lib64 -> targets/x86_64-linux/lib) are resolved here, so the
    // manifest and journal name real places and nothing later passes through a link.
    std::string real = real_path_in_toolkit(fs, t, rel_dest);
    if (real.empty()) {
      return make_error(ErrorCode::kUnsupported,
                        t.root + "/" + paths::parent(rel_dest) + " leads outside the toolkit " + t.root +
                            "; cudnnup installs only inside it (install into the directory the link points to)",
                        t.root + "/" + rel_dest);
    }
    rel_dest = real;
    std::string dest = t.root + "/" + rel_dest;
    destinations.insert(dest);
    // Public directories the install creates, top-down.
    std::vector<std::string> chain;
    for (std::string d = paths::parent(dest); d.size() > t.root.size(); d = paths::parent(d)) chain.insert(chain.begin(), d);
    for (const auto& d : chain) {
      if (!fs.exists(d) && new_dirs.insert(d).second) {
        j.new_dirs.push_back(rel(t.root, d));
        p.manifest.new_dirs.push_back(rel(t.root, d));
        p.steps.push_back({"create-dir", d, ""});
      }
    }
    ManifestFile f;
    f.path = rel_dest;
    f.source = item.rel;
    f.kind = item.kind;
    f.size = item.size;
    f.sha256 = item.sha256;
    f.link_target = item.link_target;
    auto existing = fs.lstat(dest);
    if (existing) {
      if (existing->type == FileType::kDirectory) {
        return make_error(ErrorCode::kConflict, dest + " is a directory where the archive has a file; move it away first", dest);
      }
      f.backup = rel(t.root, backup_dir) + "/" + rel_dest;
      j.moves.push_back(Move{rel_dest, f.backup, true});
      p.steps.push_back({"back-up", dest, "to " + backup_dir + "/" + rel_dest});
    }
    j.moves.push_back(Move{rel(t.root, p.stage) + "/" + item.rel, rel_dest, false});
    p.steps.push_back({"place", dest,
                       item.kind == EntryKind::kSymlink ? "symlink -> " + item.link_target
                                                        : std::to_string(item.size) + " bytes, sha256 " + item.sha256});
    p.manifest.files.push_back(f);
  }

  for (const std::string& found : find_toolkit_cudnn_files(fs, t)) {
    std::string real = real_path_in_toolkit(fs, t, rel(t.root, found));
    if (real.empty()) continue;  // a cuDNN file outside the toolkit, through a link: not ours to move
    std::string path = t.root + "/" + real;
    if (destinations.count(path)) continue;
    Leftover l;
    l.path = path;
    l.major = cudnn_major_of_file(fs, path);
    l.other_major = l.major != 0 && l.major != archive_major;
    p.leftovers.push_back(l);
    if (move_aside_leftovers) {
      std::string backup = backup_dir + "/" + rel(t.root, path);
      j.moves.push_back(Move{rel(t.root, path), rel(t.root, backup), true});
      p.manifest.moved_aside.push_back({rel(t.root, path), rel(t.root, backup)});
      p.steps.push_back({"move-aside", path, "to " + backup + (l.other_major ? " (cuDNN " + std::to_string(l.major) + ")" : "")});
    }
  }
  j.moves.push_back(Move{rel(t.root, p.manifest_stage_path), rel(t.root, t.manifest_path()), false});
  p.steps.push_back({"write-manifest", t.manifest_path(), "every file with size, sha256 and its backup"});
  j.cleanup.push_back(rel(t.root, p.stage));
  j.undo_remove.push_back(rel(t.root, backup_dir));
  j.undo_remove.push_back(rel(t.root, p.manifest_stage_path));
  std::set<std::string> sync;
  for (const auto& d : destinations) {
    if (paths::parent(d) != t.root) sync.insert(rel(t.root, paths::parent(d)));
  }
  for (const auto& d : sync) j.sync_dirs.push_back(d);
  j.sync_dirs.push_back(rel(t.root, t.private_dir()));
  return p;
}

Result<InstallPlan> plan_store_uninstall(const FileSystem& fs, const StoreLayout& store, const std::string& id,
                                         const std::string& txid) {
  InstallPlan p;
  p.mode = "store";
  p.id = id;
  p.target = store.version_dir(id);
  if (!fs.is_dir(p.target)) {
    return make_error(ErrorCode::kNotFound, "cuDNN " + id + " is not installed in the store (" + p.target +
                                                "); `cudnnup list` shows what is", p.target);
  }
  std::string trash = store.journal_dir() + "/" + txid + ".trash";
  p.journal.id = txid;
  p.journal.root = store.root;
  p.journal.kind = "uninstall-store";
  p.journal.description = "uninstall " + id + " from " + p.target;
  p.journal.moves.push_back(Move{rel(store.root, p.target), rel(store.root, trash), true});
  p.journal.cleanup.push_back(rel(store.root, trash));
  p.journal.sync_dirs.push_back("versions");
  p.steps.push_back({"remove", p.target, "one rename into " + trash + ", then deleted"});
  return p;
}

Result<InstallPlan> plan_merge_uninstall(const FileSystem& fs, const ToolkitTarget& t, const InstallManifest& m,
                                         const std::string& txid) {
  InstallPlan p;
  p.mode = "merge";
  p.id = m.id;
  p.target = t.root;
  p.manifest = m;
  std::string trash = rel(t.root, t.private_dir()) + "/trash-" + txid;
  Journal& j = p.journal;
  j.id = txid;
  j.root = t.root;
  j.kind = "uninstall-merge";
  j.description = "uninstall cuDNN " + m.cudnn_version + " from the toolkit " + t.root;
  std::set<std::string> sync;
  for (const auto& f : m.files) {
    std::string dest = t.root + "/" + f.path;
    if (fs.exists_below(t.root, f.path)) {
      j.moves.push_back(Move{f.path, trash + "/" + f.path, true});
      p.steps.push_back({"remove", dest, ""});
    }
    if (!f.backup.empty()) {
      if (!fs.exists_below(t.root, f.backup)) {
        return make_error(ErrorCode::kNotFound, "the backup " + t.root + "/" + f.backup + " of " + dest +
                                                    " is missing; cannot restore the toolkit exactly",
                          t.root + "/" + f.backup);
      }
      j.moves.push_back(Move{f.backup, f.path, false});
      p.steps.push_back({"restore", dest, "from " + t.root + "/" + f.backup});
    }
    if (f.path.find('/') != std::string::npos) sync.insert(paths::parent(f.path));
  }
  for (const auto& a : m.moved_aside) {
    if (!fs.exists_below(t.root, a.backup)) {
      return make_error(ErrorCode::kNotFound, "the moved-aside file " + t.root + "/" + a.backup + " is missing; cannot restore " +
                                                  t.root + "/" + a.path, t.root + "/" + a.backup);
    }
    j.moves.push_back(Move{a.backup, a.path, false});
    p.steps.push_back({"restore", t.root + "/" + a.path, "from " + t.root + "/" + a.backup});
  }
  j.moves.push_back(Move{rel(t.root, t.manifest_path()), trash + "/manifest.json", true});
  p.steps.push_back({"remove", t.manifest_path(), ""});
  j.cleanup.push_back(trash);
  if (!m.backup_dir.empty()) j.cleanup.push_back(m.backup_dir);
  for (auto it = m.new_dirs.rbegin(); it != m.new_dirs.rend(); ++it) j.prune_dirs.push_back(*it);
  j.prune_dirs.push_back(rel(t.root, t.private_dir()));
  for (const auto& d : sync) {
    if (std::find(m.new_dirs.begin(), m.new_dirs.end(), d) == m.new_dirs.end()) j.sync_dirs.push_back(d);
  }
  return p;
}

}  // namespace cudnnup
