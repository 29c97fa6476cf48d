// The narrow filesystem interface that all discovery and install logic goes through, so tests
// can swap in an in-memory fake with injected failures (see tests/support/memory_fs.h).
// The real implementation lives in platform/real_filesystem_{posix,win32}.cc.
//
// Paths are UTF-8 strings. Inside cudnnup they use '/' as separator on every OS (Windows accepts
// it); a Windows path looks like "C:/Program Files/NVIDIA". core/paths.h joins and splits them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace cudnnup {

// kFifo is told apart from other special files because opening one blocks (the loader model
// must never read it).
enum class FileType { kRegular, kDirectory, kSymlink, kFifo, kOther };

struct FileInfo {
  FileType type = FileType::kOther;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  // Who may have written it (docs/security.md): owned by a user other than the one cudnnup runs
  // as (the effective uid), and writable by its group or by everyone. POSIX only; Windows ACLs
  // are not modelled, so both stay false there.
  bool other_owner = false;
  bool others_may_write = false;
  // Whether the mode bits let the user cudnnup runs as write it: the owner's bit for its own
  // files, the group's when the file's group is one of the user's groups, else everyone's (root
  // always may). Not ACLs or read-only mounts. POSIX only; true elsewhere.
  bool self_may_write = true;
  // Which file this is, for caches that must notice any replacement or rewrite (the probe cache,
  // core/diagnose/probe_cache.h): device and inode, and the inode's change time, which every
  // write, rename, chmod or relink moves and which no user can set back (unlike mtime). POSIX
  // only; all zero where unknown (Windows, the in-memory test filesystem).
  uint64_t device = 0;
  uint64_t inode = 0;
  int64_t change_ns = 0;
};

// A whole file and what its open handle said about it, so checks made on `info` hold for the
// bytes read (nothing can swap the file in between).
struct FileContents {
  FileInfo info;
  std::string bytes;
};

struct DirEntry {
  std::string name;
  FileType type = FileType::kOther;  // as the directory reports it; kSymlink is not followed
};

// A file being written in chunks (install streams libraries of hundreds of MB; nothing is
// buffered whole). The file is complete only once close() succeeds.
class FileWriter {
 public:
  virtual ~FileWriter() = default;
  virtual Status write(std::string_view bytes) = 0;
  virtual Status close(bool sync) = 0;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // Reading.
  virtual Result<FileInfo> stat(const std::string& path) const = 0;   // follows links
  virtual Result<FileInfo> lstat(const std::string& path) const = 0;  // does not
  virtual Result<std::vector<DirEntry>> list_dir(const std::string& path) const = 0;
  virtual Result<std::string> read_link(const std::string& path) const = 0;
  // Reads up to `max_bytes` from `offset`; a short result means end of file.
  virtual Result<std::string> read_range(const std::string& path, uint64_t offset,
                                         size_t max_bytes) const = 0;
  // Reads a file a user named on the command line (`explain --file`, `--db`) front to back: a
  // regular file, or a pipe (`--file <(journalctl ...)`, `/dev/stdin`), waiting for its writer as
  // `cat` does, which a user who names one expects. Longer than `max_bytes` is kCorrupt (no
  // silent cut); a folder is an error. By default read_range, which suits the in-memory tests.
  virtual Result<std::string> read_stream(const std::string& path, size_t max_bytes) const;
  // Resolves every link and "..": the identity used to de-duplicate copies.
  virtual Result<std::string> canonical(const std::string& path) const = 0;
  // Reads a regular file of at most `max_bytes` (longer is kCorrupt): never a FIFO, device or
  // directory (opening one does not block), and with follow_link=false never through a link as
  // the last component. For files whose writer matters (journals, manifests, pin files).
  virtual Result<FileContents> read_regular(const std::string& path, size_t max_bytes, bool follow_link) const;

  // Writing (install, use, link). Each is one OS call; transactions are built on top.
  virtual Status make_dir(const std::string& path) = 0;  // parent must exist; ok if it exists
  virtual Status write_file(const std::string& path, const std::string& contents, bool sync) = 0;
  // The same, readable and writable by the owner only (0600): journals, manifests, state.
  // The default (Windows, where a new file takes its folder's ACL) is write_file.
  virtual Status write_private_file(const std::string& path, const std::string& contents, bool sync) {
    return write_file(path, contents, sync);
  }
  virtual Status rename(const std::string& from, const std::string& to) = 0;  // replaces `to`
  virtual Status remove(const std::string& path) = 0;  // file, link or empty directory
  virtual Status symlink(const std::string& target, const std::string& link) = 0;
  // A link to a directory that needs no special rights, used for the store's `current` link
  // (core/current_link.h). `target` is an absolute path. POSIX: a symlink. Windows: a directory
  // junction, since symlinks there need admin rights or developer mode; read_link must return a
  // junction's target and rename must be able to replace an existing link with it.
  // The default makes a symlink; platform/real_filesystem_win32.cc overrides it with a junction.
  virtual Status create_dir_link(const std::string& target, const std::string& link) { return symlink(target, link); }
  // Streams a new file (replacing one). The default collects the bytes and calls write_file at
  // close, so a fake filesystem counts the whole file as one write; real ones stream.
  virtual Result<std::unique_ptr<FileWriter>> create_file(const std::string& path);
  // Makes the entries of a directory (renames, creations) durable: fsync of the directory.
  virtual Status sync_dir(const std::string& /*path*/) { return ok_status(); }
  // Makes every write on the filesystem holding `path` durable, in one call (syncfs).
  virtual Status sync_filesystem(const std::string& /*path*/) { return ok_status(); }

  // Below a root. Journals, manifests and arguments name places inside one root (the store, a
  // toolkit); these calls take that root and a path relative to it, which must pass
  // check_stays_below (base/relative_path.h), and refuse with kPermission when a component of
  // `rel` other than the last is a link or junction: nothing they touch is outside `root` (the
  // root itself is the caller's to trust). The last component is the entry itself, so lstat,
  // remove and rename act on a link, never through it, and read_below refuses one.
  // POSIX opens each directory with openat(O_NOFOLLOW) and acts relative to the one it opened,
  // so a link swapped in after the check is never followed. The defaults (in-memory filesystem,
  // Windows) check each component with lstat and then act by path.
  virtual Result<FileInfo> lstat_below(const std::string& root, const std::string& rel) const;
  virtual Result<std::vector<DirEntry>> list_dir_below(const std::string& root, const std::string& rel) const;
  virtual Result<std::string> read_link_below(const std::string& root, const std::string& rel) const;
  virtual Result<std::string> read_below(const std::string& root, const std::string& rel, uint64_t offset,
                                         size_t max_bytes) const;
  virtual Status make_dir_below(const std::string& root, const std::string& rel);
  virtual Status rename_below(const std::string& root, const std::string& from_rel, const std::string& to_rel);
  virtual Status remove_below(const std::string& root, const std::string& rel);
  virtual Status symlink_below(const std::string& root, const std::string& target, const std::string& rel);
  bool exists_below(const std::string& root, const std::string& rel) const { return lstat_below(root, rel).ok(); }
  // A file, link or whole directory tree below root (links removed, never followed).
  Status remove_tree_below(const std::string& root, const std::string& rel);
  // Every directory from root down to rel, made as needed.
  Status make_dirs_below(const std::string& root, const std::string& rel);

  // Helpers built on the primitives above.
  bool exists(const std::string& path) const { return lstat(path).ok(); }
  bool is_dir(const std::string& path) const {
    auto info = stat(path);
    return info.ok() && info->type == FileType::kDirectory;
  }
  bool is_file(const std::string& path) const {
    auto info = stat(path);
    return info.ok() && info->type == FileType::kRegular;
  }
  Result<std::string> read_file(const std::string& path, size_t max_bytes = 16 << 20) const {
    return read_range(path, 0, max_bytes);
  }
  Status make_dirs(const std::string& path);
  // Removes a file, link or whole directory tree (links are removed, never followed).
  Status remove_tree(const std::string& path);
};

// The error of read_stream for an input over its cap, said the same way by every implementation.
Error too_large_input(const std::string& path, size_t max_bytes);

}  // namespace cudnnup
