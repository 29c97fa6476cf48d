// An in-memory FileSystem for tests: files, directories and symlinks in a map, an operation
// log, and injected failures. Modelled on ninja's VirtualFileSystem. Paths use '/'; Windows-style
// paths ("C:/Program Files/...") work too, since a path is just a key.
//
// Crash testing: set fail_after_writes = N and every write-type call after the first N fails
// (returns kIo) without changing anything, which is what a process killed at that point leaves.
//
// Windows names: with windows_names set, paths are looked up the way NTFS and Win32 do, which
// Wine cannot be trusted to imitate for links and junctions (tests of those run here): letter
// case is ignored, a trailing '.' or ' ' of a component is dropped, "name:stream" (an alternate
// data stream) opens "name", and \\?\C:\x, \\.\C:\x and \\localhost\C$\x name C:/x. A symlink
// node stands for a junction or a directory symlink.
//
// Threads: every FileSystem call takes one lock, so the install's hashing workers may read while
// the extracting thread writes, as they do on a real filesystem. `nodes` and node() are for the
// test's own thread once the code under test has finished.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/filesystem.h"

namespace cudnnup::testing {

class MemoryFileSystem : public FileSystem {
 public:
  struct Node {
    FileType type = FileType::kRegular;
    std::string contents;     // file bytes, or link target
    bool unreadable = false;  // reading/listing fails with kPermission
    int mode = 0644;          // permission bits; write_private_file makes 0600
    bool other_owner = false; // owned by another user than the one the code runs as
    std::string name;         // the last component as first created (windows_names keys fold case)
    bool our_group = false;   // its group is one of the user's groups (else another user's group)
  };

  // Setup helpers (not counted as writes, never fail).
  void add_file(const std::string& path, const std::string& contents = {});
  void add_dir(const std::string& path);
  void add_symlink(const std::string& link, const std::string& target);
  void set_unreadable(const std::string& path);
  void set_mode(const std::string& path, int mode);
  void set_other_owner(const std::string& path);
  void set_our_group(const std::string& path);
  // A named pipe: opening one for reading blocks, so read_range() counts the attempt in
  // fifo_reads and fails instead (tests assert nothing tried).
  void add_fifo(const std::string& path);
  const Node* node(const std::string& path) const;  // nullptr if absent; no link following
  std::string contents(const std::string& path) const;  // "" if absent

  // FileSystem.
  Result<FileInfo> stat(const std::string& path) const override;
  Result<FileInfo> lstat(const std::string& path) const override;
  Result<std::vector<DirEntry>> list_dir(const std::string& path) const override;
  Result<std::string> read_link(const std::string& path) const override;
  Result<std::string> read_range(const std::string& path, uint64_t offset, size_t max_bytes) const override;
  Result<std::string> canonical(const std::string& path) const override;
  Status make_dir(const std::string& path) override;
  Status write_file(const std::string& path, const std::string& contents, bool sync) override;
  Status write_private_file(const std::string& path, const std::string& contents, bool sync) override;
  Status rename(const std::string& from, const std::string& to) override;
  Status remove(const std::string& path) override;
  Status symlink(const std::string& target, const std::string& link) override;
  // Modelled as a symlink (what POSIX makes; a Windows junction behaves the same for our use).
  Status create_dir_link(const std::string& target, const std::string& link) override;

  bool windows_names = false;            // see above

  // Failure injection and observation.
  std::optional<int> fail_after_writes;  // crash point: writes beyond this count fail
  std::set<std::string> fail_paths;      // writes touching these paths fail
  // A file system that has no links at all (Wine's; FAT32 or exFAT on Windows): symlink and
  // create_dir_link fail with kUnsupported, as the Win32 layer reports it.
  bool links_unsupported = false;
  int writes_done = 0;
  mutable int fifo_reads = 0;
  std::vector<std::string> log;          // "write /a", "rename /a /b", ...
  std::map<std::string, Node> nodes;     // key(path) -> node (public for assertions)

  // The map key of a path: paths::normalize, and with windows_names the Windows folding above.
  std::string key(const std::string& path) const;

 private:
  // A mutex that a copy of the filesystem does not share (tests copy whole machines).
  struct Lock {
    std::recursive_mutex m;
    Lock() = default;
    Lock(const Lock&) {}
    Lock& operator=(const Lock&) { return *this; }
  };
  mutable Lock mutex_;
  Status write_with_mode(const std::string& path, const std::string& contents, int mode);
  FileInfo info_of(const Node& n) const;
  Status begin_write(const std::string& op, const std::string& path, const std::string& path2 = {});
  // Follows symlinks in every component; nullopt when a link dangles or loops.
  std::optional<std::string> resolve(const std::string& path, bool follow_last) const;
  bool parent_is_dir(const std::string& path) const;
};

}  // namespace cudnnup::testing
