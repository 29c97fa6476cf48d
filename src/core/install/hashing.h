// Hashing for the install pipeline, behind an interface: core sees no OS or crypto library. The
// app wires SHA-256 (platform/sha256.h: OpenSSL on Linux, CNG on Windows); tests may pass any
// deterministic hash.
//
// Two jobs, on threads of their own so an extraction pays for writing and hashing in parallel
// (docs/benchmarks.md):
//   StagedFileHashes  every staged file's digest, read back behind the writer.
//   WholeFileHash     the archive file's own digest, read from the page cache by its own thread
//                     (not through the extraction's buffers, so neither waits for the other).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/filesystem.h"

namespace cudnnup {

class Hasher {
 public:
  virtual ~Hasher() = default;
  virtual void update(std::string_view bytes) = 0;
  virtual std::string hex_digest() = 0;  // finishes the hash; lower-case hex
};
using HasherFactory = std::function<std::unique_ptr<Hasher>()>;

// Reads a whole file through `fs` in 1 MiB pieces and returns its digest; `done` (when given)
// counts the bytes read, for a progress display.
Result<std::string> hash_file(const FileSystem& fs, const std::string& path, const HasherFactory& new_hasher,
                              std::atomic<uint64_t>* done = nullptr);
// The same for a regular file below `root`, read without passing through a link (read_below).
Result<std::string> hash_file_below(const FileSystem& fs, const std::string& root, const std::string& rel,
                                    const HasherFactory& new_hasher);

// Every staged file's digest, read back from the stage by worker threads that follow the writer
// through the page cache: the extracting thread only says how far each file is written, copies
// nothing and never waits for a hash; one large file and the rest are hashed at the same time.
// A file that cannot be read yet (a filesystem that shows it only when closed, a Windows share
// mode) is read once it is closed. `fs` must allow reads from the workers while the caller
// writes (the real filesystem does; the tests' in-memory one locks).
class StagedFileHashes {
 public:
  // `workers`: 0 picks by the machine (hardware threads less the writer and the archive hash).
  StagedFileHashes(const FileSystem& fs, std::string stage_dir, HasherFactory new_hasher, unsigned workers = 0);
  ~StagedFileHashes();
  StagedFileHashes(const StagedFileHashes&) = delete;
  StagedFileHashes& operator=(const StagedFileHashes&) = delete;

  // The writer starts stage_dir/rel; its digest will be finish()[index].
  size_t begin_file(std::string rel);
  // `bytes` of the file are written (a running total).
  void wrote(size_t index, uint64_t bytes);
  // The file is complete and closed at `bytes`.
  void closed(size_t index, uint64_t bytes);
  // Waits for the workers: one digest per begun file, or the first read error. Every begun file
  // must be closed first.
  Result<std::vector<std::string>> finish();

  static unsigned default_workers();

 private:
  struct File {
    std::string rel;
    uint64_t written = 0;
    uint64_t announced = 0;  // the total the workers were last woken for
    bool closed = false;
    std::string digest;
  };
  void run();
  // Hashes one file, following the writer; false with error_ set when it cannot be read.
  bool hash_one(size_t index);

  const FileSystem& fs_;
  std::string stage_dir_;
  HasherFactory new_hasher_;
  std::vector<File> files_;  // grows only under mutex_; workers use an index
  size_t next_unclaimed_ = 0;
  bool done_ = false;        // no more files will begin
  bool abandoned_ = false;   // the extraction failed: stop without finishing
  std::optional<Error> error_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::thread> workers_;
};

// Hashes one file on a thread of its own, started by the constructor. `fs` must allow reads from
// that thread while the caller works (the real filesystem does; tests give the archive its own
// in-memory filesystem).
class WholeFileHash {
 public:
  WholeFileHash(const FileSystem& fs, std::string path, HasherFactory new_hasher);
  ~WholeFileHash();  // stops early when result() was never asked for
  WholeFileHash(const WholeFileHash&) = delete;
  WholeFileHash& operator=(const WholeFileHash&) = delete;

  uint64_t bytes_done() const { return done_.load(std::memory_order_relaxed); }
  // Waits for the thread; the digest, or the read error.
  Result<std::string> result();

 private:
  void run(const FileSystem& fs, HasherFactory new_hasher);
  std::string path_;
  std::atomic<uint64_t> done_{0};
  std::atomic<bool> stop_{false};
  Result<std::string> result_ = std::string();
  std::thread worker_;
};

}  // namespace cudnnup
