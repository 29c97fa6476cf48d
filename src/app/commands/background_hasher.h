// SHA-256 of many files on a second thread, so an extraction pays for writing and hashing in
// parallel instead of one after the other (docs/benchmarks.md: hashing every file is as much CPU
// as tar's whole run). The extracting thread copies each chunk into a bounded ring and moves on;
// the digests are collected per file, in the order the files were begun.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace cudnnup {

class BackgroundHasher {
 public:
  static constexpr size_t kSlotBytes = 128 << 10;  // add() takes chunks of at most this size
  static constexpr size_t kSlots = 64;             // 8 MiB in flight at most

  BackgroundHasher();
  ~BackgroundHasher();
  BackgroundHasher(const BackgroundHasher&) = delete;
  BackgroundHasher& operator=(const BackgroundHasher&) = delete;

  // Starts the next file; its digest will be finish()[index].
  size_t begin_file();
  void add(std::string_view chunk);
  // Waits for the worker and returns one lower-case hex digest per begun file.
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

}  // namespace cudnnup
