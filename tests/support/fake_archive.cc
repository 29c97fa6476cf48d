#include "support/fake_archive.h"

#include <cstdio>

namespace cudnnup::testing {
namespace {

class FakeArchive final : public ArchiveEntries {
 public:
  explicit FakeArchive(const std::vector<FakeEntry>& entries) : entries_(entries) {}
  Result<std::optional<ArchiveEntryInfo>> next() override {
    if (next_ >= entries_.size()) return std::optional<ArchiveEntryInfo>();
    current_ = &entries_[next_++];
    offset_ = 0;
    ArchiveEntryInfo info;
    info.path = current_->path;
    info.kind = current_->kind;
    info.link_target = current_->link_target;
    info.size = current_->declared_size >= 0 ? uint64_t(current_->declared_size) : current_->data.size();
    info.mode = current_->mode >= 0 ? uint32_t(current_->mode) : current_->kind == EntryKind::kDirectory ? 0755 : 0644;
    position_ += 512;  // a header's worth
    return std::optional<ArchiveEntryInfo>(info);
  }
  Result<std::string_view> read_block() override {
    if (!current_ || current_->kind != EntryKind::kFile) return std::string_view();
    // A declared size other than the data's is a truncated entry; the pipeline must notice.
    if (offset_ >= current_->data.size()) return std::string_view();
    size_t n = std::min<size_t>(64 << 10, current_->data.size() - offset_);
    std::string_view block(current_->data.data() + offset_, n);
    offset_ += n;
    position_ += n;
    return block;
  }
  uint64_t position() const override { return position_; }

 private:
  const std::vector<FakeEntry>& entries_;
  size_t next_ = 0;
  const FakeEntry* current_ = nullptr;
  size_t offset_ = 0;
  uint64_t position_ = 0;
};

// FNV-1a in four lanes with different starting values: 64 hex digits, the length of a sha256.
class Fnv final : public Hasher {
 public:
  void update(std::string_view bytes) override {
    for (unsigned char c : bytes) {
      for (auto& h : h_) h = (h ^ c) * 1099511628211ull;
    }
  }
  std::string hex_digest() override {
    std::string out;
    for (auto h : h_) {
      char buf[17];
      std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
      out += buf;
    }
    return out;
  }

 private:
  uint64_t h_[4] = {14695981039346656037ull, 1ull, 2ull, 3ull};
};

}  // namespace

void FakeArchives::add(MemoryFileSystem& source, const std::string& path, std::vector<FakeEntry> entries) {
  std::string bytes;
  for (const auto& e : entries) bytes += e.path + '\0' + e.link_target + '\0' + e.data;
  source.add_file(path, bytes);
  shared_->archives[path] = std::move(entries);
}

ArchiveOpener FakeArchives::opener() {
  auto shared = shared_;
  return [shared](const std::string& path) -> Result<std::unique_ptr<ArchiveEntries>> {
    auto it = shared->archives.find(path);
    if (it == shared->archives.end()) return make_error(ErrorCode::kNotFound, "no fake archive " + path, path);
    ++shared->opened[path];
    return std::unique_ptr<ArchiveEntries>(new FakeArchive(it->second));
  };
}

int FakeArchives::times_opened(const std::string& path) const {
  auto it = shared_->opened.find(path);
  return it == shared_->opened.end() ? 0 : it->second;
}

InstallServices FakeArchives::services(Progress* progress) {
  InstallServices s;
  s.open_archive = opener();
  s.new_hasher = test_hasher();
  s.progress = progress;
  return s;
}

HasherFactory test_hasher() {
  return [] { return std::unique_ptr<Hasher>(new Fnv()); };
}

std::string test_digest(const std::string& bytes) {
  Fnv h;
  h.update(bytes);
  return h.hex_digest();
}

void RecordingProgress::begin_phase(const std::string& name, uint64_t total, std::function<uint64_t()> done) {
  phases.push_back({name, total, bool(done), 0});
  done_ = std::move(done);
}

void RecordingProgress::end_phase() {
  if (done_ && !phases.empty()) phases.back().final_count = done_();
  done_ = nullptr;
}

std::string with_elf_machine(std::string elf, uint16_t machine) {
  if (elf.size() > 19) {
    elf[18] = char(machine & 0xff);
    elf[19] = char(machine >> 8);
  }
  return elf;
}

std::string with_elf_type(std::string elf, uint16_t type) {
  if (elf.size() > 17) {
    elf[16] = char(type & 0xff);
    elf[17] = char(type >> 8);
  }
  return elf;
}

}  // namespace cudnnup::testing
