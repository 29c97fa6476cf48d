#include "install/merge_check.h"

namespace cudnnup {
namespace {

const char* kind_name(FileType t) {
  switch (t) {
    case FileType::kRegular: return "a file";
    case FileType::kDirectory: return "a directory";
    case FileType::kSymlink: return "a link";
    case FileType::kFifo: return "a named pipe";
    case FileType::kOther: break;
  }
  return "a special file";
}

}  // namespace

MergeCheck check_merge_unchanged(const FileSystem& fs, const ToolkitTarget& t, const InstallManifest& m,
                                 const BelowHasher& hash) {
  MergeCheck out;
  auto changed = [&](const std::string& rel, const std::string& why) { out.changed.push_back({t.root + "/" + rel, why}); };
  for (const auto& f : m.files) {
    auto info = fs.lstat_below(t.root, f.path);
    if (!info) {
      if (info.error().code == ErrorCode::kNotFound) out.missing.push_back(t.root + "/" + f.path);
      else changed(f.path, info.error().code == ErrorCode::kPermission ? "is now reached through a link" : info.error().message);
      continue;
    }
    std::string was = f.kind == EntryKind::kSymlink ? "was a link to " + f.link_target : "was a file";
    if (f.kind == EntryKind::kSymlink) {
      if (info->type != FileType::kSymlink) {
        changed(f.path, was + ", is now " + kind_name(info->type));
      } else if (auto target = fs.read_link_below(t.root, f.path); !target || *target != f.link_target) {
        changed(f.path, was + ", now points to " + (target ? *target : std::string("?")));
      }
      continue;
    }
    if (info->type != FileType::kRegular) {
      changed(f.path, was + ", is now " + kind_name(info->type));
      continue;
    }
    auto sum = hash(t.root, f.path);
    if (!sum) changed(f.path, "cannot be read (" + sum.error().message + ")");
    else if (*sum != f.sha256) changed(f.path, "its contents changed since install");
  }
  for (const auto& d : m.new_dirs) {
    auto info = fs.lstat_below(t.root, d);
    if (info && info->type != FileType::kDirectory) changed(d, std::string("was a directory cudnnup created, is now ") + kind_name(info->type));
    if (!info && info.error().code == ErrorCode::kPermission) changed(d, "is now reached through a link");
  }
  return out;
}

std::string pending_transaction_in(const FileSystem& fs, const ToolkitTarget& t, const std::string& own_txid) {
  auto entries = fs.list_dir_below(t.root, ".cudnnup");
  if (!entries) return {};
  for (const auto& e : *entries) {
    for (const std::string prefix : {"stage-", "trash-"}) {
      if (e.name.rfind(prefix, 0) != 0) continue;
      std::string tx = e.name.substr(prefix.size());
      if (tx.size() > 14 && tx.compare(tx.size() - 14, 14, ".manifest.json") == 0) tx.resize(tx.size() - 14);
      if (tx != own_txid) return e.name;
    }
  }
  return {};
}

}  // namespace cudnnup
