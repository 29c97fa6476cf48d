// A read-through cache in front of another FileSystem, for commands that only look (doctor,
// which, explain). Discovery, the loader model and the framework model ask about the same paths
// many times (realpath alone costs a readlink per path component); answering repeats from
// memory cut doctor's system calls by more than half. Any write clears the cache, so it is
// never stale for its own changes; changes made by other processes during one run are not seen.
#pragma once

#include <array>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "base/filesystem.h"

namespace cudnnup {

class CachingFileSystem final : public FileSystem {
 public:
  explicit CachingFileSystem(const FileSystem& inner) : inner_(inner), writable_(nullptr) {}
  explicit CachingFileSystem(FileSystem& inner) : inner_(inner), writable_(&inner) {}

  Result<FileInfo> stat(const std::string& path) const override;
  Result<FileInfo> lstat(const std::string& path) const override;
  Result<std::vector<DirEntry>> list_dir(const std::string& path) const override;
  Result<std::string> read_link(const std::string& path) const override;
  Result<std::string> read_range(const std::string& path, uint64_t offset, size_t max_bytes) const override;
  // Not cached, and the inner filesystem's own: its checks (a regular file, not a link, whose
  // owner and mode allow trusting it) must hold for the very bytes read, which the POSIX one
  // ensures with O_NOFOLLOW and fstat on one descriptor. The generic version (lstat, then a
  // second open) would leave a window to swap the file.
  Result<FileContents> read_regular(const std::string& path, size_t max_bytes, bool follow_link) const override {
    return inner_.read_regular(path, max_bytes, follow_link);
  }
  Result<std::string> canonical(const std::string& path) const override;

  Status make_dir(const std::string& path) override;
  Status write_file(const std::string& path, const std::string& contents, bool sync) override;
  Status rename(const std::string& from, const std::string& to) override;
  Status remove(const std::string& path) override;
  Status symlink(const std::string& target, const std::string& link) override;
  Status create_dir_link(const std::string& target, const std::string& link) override;

 private:
  // Reads larger than this go straight through: headers are small, library bodies are not.
  static constexpr size_t kMaxCachedRead = 256 << 10;
  // What was read, by offset: a later read inside it (the header readers ask for a part of what
  // was read before) is answered from it. Reads are never made larger than asked: reading ahead
  // costs doctor more in page faults and zeroed buffers than the system calls it saves.
  struct Block {
    uint64_t offset = 0;
    std::string bytes;
    bool to_end = false;  // shorter than asked: the file ends inside it
  };
  // Sharded by path: doctor's main thread and its helper thread ask at the same time, and behind
  // one lock they kept waking each other in the kernel (~470 futex calls a run of doctor --json,
  // docs/benchmarks.md 2026-12-07). A path's answers all live in one shard.
  struct Shard {
    std::mutex mu;
    // Hashed: the loader model asks thousands of times about paths that share long prefixes,
    // which an ordered map compares character by character.
    std::unordered_map<std::string, Result<FileInfo>> stat, lstat;
    std::unordered_map<std::string, Result<std::vector<DirEntry>>> dirs;
    std::unordered_map<std::string, Result<std::string>> links, canonical;
    std::unordered_map<std::string, std::vector<Block>> blocks;
    std::unordered_map<std::string, Error> read_errors;  // a file that cannot be read at all
  };
  static constexpr size_t kShards = 16;
  Shard& shard_for(const std::string& path) const;
  // The cached block of `shard` that holds [offset, offset + n) of `path`, or nullptr. Called with
  // the shard's lock held.
  static const Block* block_for(const Shard& shard, const std::string& path, uint64_t offset, size_t n);
  Result<std::string> resolve_components(const std::string& path) const;
  Status writable_or_error(const std::string& path) const;
  void clear();

  const FileSystem& inner_;
  FileSystem* writable_;
  mutable std::array<Shard, kShards> shards_;
};

}  // namespace cudnnup
