#include "app/commands/background_hasher.h"

#if CUDNNUP_HAVE_INSTALL  // Sha256 is OpenSSL, built with the install code

#include <memory>

#include "platform/sha256.h"

namespace cudnnup {

BackgroundHasher::BackgroundHasher() : ring_(kSlots) {
  for (auto& slot : ring_) slot.bytes.resize(kSlotBytes);
  worker_ = std::thread([this] { run(); });
}

BackgroundHasher::~BackgroundHasher() {
  if (worker_.joinable()) finish();
}

size_t BackgroundHasher::begin_file() {
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

void BackgroundHasher::add(std::string_view chunk) {
  while (!chunk.empty()) {
    size_t n = chunk.size() < kSlotBytes ? chunk.size() : kSlotBytes;
    Slot& slot = claim();
    slot.starts_file = pending_start_;
    pending_start_ = false;
    std::copy(chunk.data(), chunk.data() + n, slot.bytes.data());
    slot.size = n;
    publish();
    chunk.remove_prefix(n);
  }
}

std::vector<std::string> BackgroundHasher::finish() {
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

BackgroundHasher::Slot& BackgroundHasher::claim() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return produced_ - consumed_ < kSlots; });
  return ring_[produced_ % kSlots];
}

void BackgroundHasher::publish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++produced_;
  }
  changed_.notify_all();
}

void BackgroundHasher::run() {
  std::unique_ptr<Sha256> hash;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [this] { return consumed_ < produced_ || done_; });
    if (consumed_ == produced_) break;  // done_ and drained
    Slot& slot = ring_[consumed_ % kSlots];
    lock.unlock();
    if (slot.starts_file) {
      if (hash) digests_.push_back(hash->hex_digest());
      hash = std::make_unique<Sha256>();
    }
    if (hash) hash->update(std::string_view(slot.bytes.data(), slot.size));
    lock.lock();
    ++consumed_;
    changed_.notify_all();
  }
  if (hash) digests_.push_back(hash->hex_digest());
}

}  // namespace cudnnup

#endif  // CUDNNUP_HAVE_INSTALL
