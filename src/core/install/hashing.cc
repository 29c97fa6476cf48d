#include "install/hashing.h"

#include <algorithm>

#include "base/paths.h"

namespace cudnnup {

namespace {

template <typename Read>
Result<std::string> hash_chunks(const HasherFactory& new_hasher, std::atomic<uint64_t>* done, Read&& read) {
  auto h = new_hasher();
  uint64_t offset = 0;
  while (true) {
    auto chunk = read(offset, size_t(1) << 20);
    if (!chunk) return chunk.error();
    if (chunk->empty()) break;
    h->update(*chunk);
    offset += chunk->size();
    if (done) done->store(offset, std::memory_order_relaxed);
  }
  return h->hex_digest();
}

}  // namespace

Result<std::string> hash_file(const FileSystem& fs, const std::string& path, const HasherFactory& new_hasher,
                              std::atomic<uint64_t>* done) {
  return hash_chunks(new_hasher, done, [&](uint64_t offset, size_t n) { return fs.read_range(path, offset, n); });
}

Result<std::string> hash_file_below(const FileSystem& fs, const std::string& root, const std::string& rel,
                                    const HasherFactory& new_hasher) {
  return hash_chunks(new_hasher, nullptr, [&](uint64_t offset, size_t n) { return fs.read_below(root, rel, offset, n); });
}

// --- StagedFileHashes -----------------------------------------------------------------------------

namespace {
// Read back in 1 MiB pieces, as hash_file does; the writer is woken for at most one per MiB.
constexpr uint64_t kPiece = 1 << 20;
}  // namespace

unsigned StagedFileHashes::default_workers() {
  // The writer and the archive's own hash have a core each; the rest hash files, up to four (one
  // large library and the others at once; more find nothing left to do).
  unsigned threads = std::thread::hardware_concurrency();
  return threads <= 3 ? 1 : std::min(4u, threads - 2);
}

StagedFileHashes::StagedFileHashes(const FileSystem& fs, std::string stage_dir, HasherFactory new_hasher, unsigned workers)
    : fs_(fs), stage_dir_(std::move(stage_dir)), new_hasher_(std::move(new_hasher)) {
  if (workers == 0) workers = default_workers();
  for (unsigned i = 0; i < workers; ++i) workers_.emplace_back([this] { run(); });
}

StagedFileHashes::~StagedFileHashes() {
  // Without finish() the extraction failed: files may never be closed, so the workers stop now.
  {
    std::lock_guard<std::mutex> lock(mutex_);
    abandoned_ = true;
  }
  changed_.notify_all();
  for (auto& w : workers_) {
    if (w.joinable()) w.join();
  }
}

size_t StagedFileHashes::begin_file(std::string rel) {
  size_t index;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    index = files_.size();
    File file;
    file.rel = std::move(rel);
    files_.push_back(std::move(file));
  }
  changed_.notify_all();
  return index;
}

void StagedFileHashes::wrote(size_t index, uint64_t bytes) {
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    File& f = files_[index];
    f.written = bytes;
    wake = f.written - f.announced >= kPiece;
    if (wake) f.announced = f.written;
  }
  if (wake) changed_.notify_all();
}

void StagedFileHashes::closed(size_t index, uint64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    files_[index].written = bytes;
    files_[index].closed = true;
  }
  changed_.notify_all();
}

Result<std::vector<std::string>> StagedFileHashes::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  changed_.notify_all();
  for (auto& w : workers_) {
    if (w.joinable()) w.join();
  }
  if (error_) return *error_;
  std::vector<std::string> digests;
  for (const auto& f : files_) {
    if (!f.closed) return make_error(ErrorCode::kInternal, "the staged file " + f.rel + " was never closed", f.rel);
    digests.push_back(f.digest);
  }
  return digests;
}

void StagedFileHashes::run() {
  while (true) {
    size_t index;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [this] { return abandoned_ || error_ || done_ || next_unclaimed_ < files_.size(); });
      if (abandoned_ || error_ || next_unclaimed_ == files_.size()) return;  // with done_: nothing left
      index = next_unclaimed_++;
    }
    if (!hash_one(index)) return;
  }
}

bool StagedFileHashes::hash_one(size_t index) {
  auto hash = new_hasher_();
  std::string rel;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    rel = files_[index].rel;
  }
  uint64_t hashed = 0;
  uint64_t seen = 0;  // the writer's total at the last attempt: wait for more than that
  while (true) {
    uint64_t written;
    bool closed;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return abandoned_ || files_[index].closed || files_[index].written > seen; });
      if (abandoned_) return false;
      written = files_[index].written;
      closed = files_[index].closed;
    }
    seen = written;
    while (hashed < written) {
      auto piece = fs_.read_below(stage_dir_, rel, hashed, size_t(std::min(kPiece, written - hashed)));
      if (piece && !piece->empty()) {
        hash->update(*piece);
        hashed += piece->size();
        continue;
      }
      if (!closed) break;  // not readable yet (shown only when closed): again when the writer moves on
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) {
        error_ = piece ? make_error(ErrorCode::kIo,
                                    paths::join(stage_dir_, rel) + " changed while it was installed: it ends at " +
                                        std::to_string(hashed) + " bytes, not " + std::to_string(written),
                                    paths::join(stage_dir_, rel))
                       : piece.error();
      }
      changed_.notify_all();
      return false;
    }
    if (closed && hashed == written) {
      std::lock_guard<std::mutex> lock(mutex_);
      files_[index].digest = hash->hex_digest();
      return true;
    }
  }
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
