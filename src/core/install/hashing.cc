#include "install/hashing.h"

#include <algorithm>

namespace cudnnup {

Result<std::string> hash_file(const FileSystem& fs, const std::string& path, const HasherFactory& new_hasher,
                              std::atomic<uint64_t>* done) {
  auto h = new_hasher();
  uint64_t offset = 0;
  while (true) {
    auto chunk = fs.read_range(path, offset, 1 << 20);
    if (!chunk) return chunk.error();
    if (chunk->empty()) break;
    h->update(*chunk);
    offset += chunk->size();
    if (done) done->store(offset, std::memory_order_relaxed);
  }
  return h->hex_digest();
}

// --- FileHashRing ---------------------------------------------------------------------------------

FileHashRing::FileHashRing(HasherFactory new_hasher) : new_hasher_(std::move(new_hasher)), ring_(kSlots) {
  for (auto& slot : ring_) slot.bytes.resize(kSlotBytes);
  worker_ = std::thread([this] { run(); });
}

FileHashRing::~FileHashRing() {
  if (worker_.joinable()) finish();
}

size_t FileHashRing::begin_file() {
  // The start travels with the file's first chunk; an empty file gets a slot of its own.
  if (pending_start_) {
    Slot& slot = claim();
    slot.starts_file = true;
    slot.size = 0;
    publish();
  }
  pending_start_ = true;
  return files_++;
}

void FileHashRing::add(std::string_view chunk) {
  while (!chunk.empty()) {
    size_t n = std::min(chunk.size(), kSlotBytes);
    Slot& slot = claim();
    slot.starts_file = pending_start_;
    pending_start_ = false;
    std::copy(chunk.data(), chunk.data() + n, slot.bytes.data());
    slot.size = n;
    publish();
    chunk.remove_prefix(n);
  }
}

std::vector<std::string> FileHashRing::finish() {
  if (pending_start_) {
    Slot& slot = claim();
    slot.starts_file = true;
    slot.size = 0;
    publish();
    pending_start_ = false;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
  return std::move(digests_);
}

FileHashRing::Slot& FileHashRing::claim() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return produced_ - consumed_ < kSlots; });
  return ring_[produced_ % kSlots];
}

void FileHashRing::publish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++produced_;
  }
  changed_.notify_all();
}

void FileHashRing::run() {
  std::unique_ptr<Hasher> hash;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [this] { return consumed_ < produced_ || done_; });
    if (consumed_ == produced_) break;  // done_ and drained
    Slot& slot = ring_[consumed_ % kSlots];
    lock.unlock();
    if (slot.starts_file) {
      if (hash) digests_.push_back(hash->hex_digest());
      hash = new_hasher_();
    }
    if (hash) hash->update(std::string_view(slot.bytes.data(), slot.size));
    lock.lock();
    ++consumed_;
    changed_.notify_all();
  }
  if (hash) digests_.push_back(hash->hex_digest());
}

// --- WholeFileHash --------------------------------------------------------------------------------

WholeFileHash::WholeFileHash(const FileSystem& fs, std::string path, HasherFactory new_hasher) : path_(std::move(path)) {
  worker_ = std::thread([this, &fs, new_hasher = std::move(new_hasher)] { run(fs, new_hasher); });
}

WholeFileHash::~WholeFileHash() {
  stop_ = true;
  if (worker_.joinable()) worker_.join();
}

void WholeFileHash::run(const FileSystem& fs, HasherFactory new_hasher) {
  // 1 MiB reads: large enough that the per-call cost vanishes, small enough to stay in cache.
  constexpr size_t kPiece = 1 << 20;
  auto h = new_hasher();
  uint64_t offset = 0;
  while (!stop_) {
    auto piece = fs.read_range(path_, offset, kPiece);
    if (!piece) {
      result_ = piece.error();
      return;
    }
    if (piece->empty()) break;
    h->update(*piece);
    offset += piece->size();
    done_.store(offset, std::memory_order_relaxed);
  }
  result_ = h->hex_digest();
}

Result<std::string> WholeFileHash::result() {
  if (worker_.joinable()) worker_.join();
  return result_;
}

}  // namespace cudnnup
