#include "install/archive_policy.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

#include "base/paths.h"
#include "base/relative_path.h"
#include "base/strings.h"

namespace cudnnup {
namespace {


std::vector<std::string> split_components(const std::string& path) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : path) {
    if (c == '/' || c == '\\') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

}  // namespace

const char* entry_kind_name(EntryKind k) {
  switch (k) {
    case EntryKind::kFile: return "file";
    case EntryKind::kDirectory: return "directory";
    case EntryKind::kSymlink: return "symlink";
    case EntryKind::kHardlink: return "hard link";
    case EntryKind::kDevice: return "device node";
    case EntryKind::kFifo: return "fifo";
    case EntryKind::kSocket: return "socket";
    case EntryKind::kOther: break;
  }
  return "special file";
}

uint64_t ExtractionLimits::bound() const {
  uint64_t by_ratio = archive_bytes > cap_bytes / (ratio ? ratio : 1) ? cap_bytes : archive_bytes * ratio;
  return std::min(cap_bytes, std::max(floor_bytes, by_ratio));
}

bool looks_absolute(const std::string& p) {
  if (p.empty()) return false;
  if (p[0] == '/' || p[0] == '\\') return true;
  if (p.size() >= 2 && std::isalpha(static_cast<unsigned char>(p[0])) && p[1] == ':') return true;  // C: or C:\x
  return false;
}


Result<std::string> EntryPolicy::admit(const ArchiveEntryInfo& e) {
  const std::string& raw = e.path;
  if (++entries_ > limits_.max_entries) {
    return refuse_entry(raw, "the archive has more than " + std::to_string(limits_.max_entries) +
                           " entries, far more than any cuDNN release");
  }
  if (raw.empty()) return refuse_entry(raw, "empty path");
  if (raw.size() > limits_.max_path_length) return refuse_entry(raw, "path longer than " + std::to_string(limits_.max_path_length));
  if (looks_absolute(raw)) return refuse_entry(raw, "absolute path or drive letter (would write outside the target)");

  switch (e.kind) {
    case EntryKind::kFile:
    case EntryKind::kDirectory:
    case EntryKind::kSymlink:
      break;
    case EntryKind::kHardlink:
      return refuse_entry(raw, "hard link to '" + e.link_target + "' (official archives contain none; hard links can escape the target)");
    default:
      return refuse_entry(raw, std::string(entry_kind_name(e.kind)) + " (only files, directories and symlinks are installed)");
  }

  // Components: no "..", "." dropped, empty components (a//b, trailing '/') dropped.
  std::vector<std::string> parts;
  for (const std::string& part : split_components(raw)) {
    if (part.empty() || part == ".") continue;
    if (part == "..") return refuse_entry(raw, "'..' in the path (path traversal)");
    if (part.size() > limits_.max_name_length) {
      return refuse_entry(raw, "a name in the path is longer than " + std::to_string(limits_.max_name_length) +
                             " bytes, which file systems do not allow");
    }
    if (part.size() >= 2 && part[1] == ':') return refuse_entry(raw, "drive letter or alternate stream in a path component");
    if (auto why = windows_name_hazard(part); !why.empty()) return refuse_entry(raw, why);
    parts.push_back(part);
  }
  if (parts.empty()) return refuse_entry(raw, "path names no file");

  if (top_dir_.empty()) top_dir_ = parts[0];
  if (parts[0] != top_dir_) {
    return refuse_entry(raw, "outside the single top folder '" + top_dir_ + "/' (official archives have exactly one)");
  }
  if (parts.size() == 1) {
    if (e.kind != EntryKind::kDirectory) return refuse_entry(raw, "the top folder must be a directory");
    return std::string();
  }
  std::string rel;
  for (size_t i = 1; i < parts.size(); ++i) {
    if (i > 1) {
      // Every parent must be a directory (seen or implied), never a link or file in the archive.
      // Looked up without case: on Windows and macOS "D/x" is written through the link "d".
      auto spelled = folded_.find(ascii_lower(rel));
      auto parent = kinds_.find(spelled != folded_.end() ? spelled->second : rel);
      if (parent != kinds_.end() && parent->second != EntryKind::kDirectory) {
        return refuse_entry(raw, "its parent '" + rel + "' is a " + entry_kind_name(parent->second) +
                               " in the archive (writing through it could escape the target)");
      }
    }
    rel += (rel.empty() ? "" : "/") + parts[i];
  }

  auto seen = kinds_.find(rel);
  if (seen != kinds_.end()) {
    if (seen->second == EntryKind::kDirectory && e.kind == EntryKind::kDirectory) return rel;  // harmless repeat
    return refuse_entry(raw, "duplicate entry (a later copy would silently replace the first)");
  }
  std::string folded = ascii_lower(rel);
  auto twin = folded_.find(folded);
  if (twin != folded_.end() && twin->second != rel) {
    return refuse_entry(raw, "differs only in letter case from '" + twin->second +
                           "' (one would overwrite the other on Windows and macOS)");
  }
  if (e.kind == EntryKind::kSymlink) {
    // Absolute targets leave the tree whatever surrounds it; relative ones are followed on the
    // whole tree at the end (install/resolved_tree.h).
    if (e.link_target.empty()) return refuse_entry(raw, "symlink with an empty target");
    if (e.link_target.size() > limits_.max_path_length) {
      return refuse_entry(raw, "symlink target longer than " + std::to_string(limits_.max_path_length));
    }
    if (looks_absolute(e.link_target)) {
      return refuse_entry(raw, "symlink to the absolute path '" + e.link_target + "' leads outside the archive's folder");
    }
  }
  if (e.mode & 06000) return refuse_entry(raw, "set-user-ID or set-group-ID bit (official archives have none)");
  if (e.kind == EntryKind::kFile && e.size_known && e.size > limits_.bound()) {
    return refuse_entry(raw, "declares " + std::to_string(e.size) + " bytes, more than the " + std::to_string(limits_.bound()) +
                           "-byte limit for this archive (a decompression bomb?)");
  }
  // Implied parent directories become known directories, so a later "x" file cannot replace one.
  std::string prefix;
  for (size_t i = 1; i + 1 < parts.size(); ++i) {
    prefix += (prefix.empty() ? "" : "/") + parts[i];
    kinds_.emplace(prefix, EntryKind::kDirectory);
    folded_.emplace(ascii_lower(prefix), prefix);
  }
  kinds_[rel] = e.kind;
  folded_[folded] = rel;
  return rel;
}

Status EntryPolicy::count_bytes(uint64_t n) {
  total_bytes_ += n;
  if (total_bytes_ > limits_.bound()) {
    return make_error(ErrorCode::kCorrupt,
                      "refusing archive: it unpacks to more than " + std::to_string(limits_.bound()) +
                          " bytes, the limit for an archive of " + std::to_string(limits_.archive_bytes) +
                          " bytes (a decompression bomb, or the wrong file)");
  }
  return ok_status();
}

Error refuse_entry(const std::string& entry, const std::string& why) {
  return make_error(ErrorCode::kCorrupt, "refusing archive entry '" + entry + "': " + why, entry);
}

}  // namespace cudnnup
