// Hashing for the install pipeline, behind an interface: core sees no OS or crypto library. The
// app wires SHA-256 (platform/sha256.h: OpenSSL on Linux, CNG on Windows); tests may pass any
// deterministic hash.
//
// Two jobs, each on its own thread so an extraction pays for writing and hashing in parallel
// (docs/benchmarks.md):
//   FileHashRing    every extracted file's digest. The extracting thread copies each chunk into
//                   a bounded ring and moves on; digests come back per file, in order.
//   WholeFileHash   the archive file's own digest, read from the page cache by its own thread
//                   (not through the extraction's buffers, so neither waits for the other).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
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

class FileHashRing {
 public:
  static constexpr size_t kSlotBytes = 128 << 10;  // add() takes chunks of at most this size
  static constexpr size_t kSlots = 64;             // 8 MiB in flight at most

  explicit FileHashRing(HasherFactory new_hasher);
  ~FileHashRing();
  FileHashRing(const FileHashRing&) = delete;
  FileHashRing& operator=(const FileHashRing&) = delete;

  // Starts the next file; its digest will be finish()[index].
  size_t begin_file();
  void add(std::string_view chunk);
  // Waits for the worker and returns one digest per begun file.
  std::vector<std::string> finish();

 private:
  struct Slot {
    bool starts_file = false;  // finish the previous file's hash and start a new one first
    std::vector<char> bytes;
    size_t size = 0;
  };
  void run();
  Slot& claim();   // the next free slot (waits while the ring is full)
  void publish();  // hands the claimed slot to the worker

  HasherFactory new_hasher_;
  std::vector<Slot> ring_;
  size_t produced_ = 0;
  size_t consumed_ = 0;
  size_t files_ = 0;
  bool pending_start_ = false;  // begin_file() seen, no chunk yet
  bool done_ = false;
  std::vector<std::string> digests_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::thread worker_;
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
