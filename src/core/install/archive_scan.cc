#include "install/archive_scan.h"

#include <atomic>
#include <memory>
#include <optional>

#include "base/paths.h"
#include "install/resolved_tree.h"

namespace cudnnup {
namespace {

// Written in pieces of at most 128 KiB: larger write() calls were several times slower on the
// test machine (docs/benchmarks.md).
constexpr size_t kWriteChunk = 128 << 10;

struct Extraction {
  ArchiveEntries& reader;
  EntryPolicy& policy;
  const HasherFactory& new_hasher;
  StagedFileHashes* staged_hashes = nullptr;  // with stage: the workers that hash staged files
  FileSystem* stage = nullptr;
  std::string stage_dir;
  std::atomic<uint64_t>& position;  // for the progress display
};

// One regular file: its bytes into the stage and the item's head. A staged file is hashed by the
// workers behind the writer; without a stage (a dry run) here, as the bytes pass.
Status extract_file(Extraction& x, const ArchiveEntryInfo& entry, ArchiveItem& item, const std::string& archive_path,
                    std::optional<size_t>& staged_index) {
  std::unique_ptr<FileWriter> writer;
  std::unique_ptr<Hasher> hash;
  if (x.stage) {
    auto w = x.stage->create_file(paths::join(x.stage_dir, item.rel));
    if (!w) return w.error();
    writer = std::move(*w);
    staged_index = x.staged_hashes->begin_file(item.rel);
  } else {
    hash = x.new_hasher();
  }
  while (true) {
    auto block = x.reader.read_block();  // no copy: straight from the reader's buffer
    if (!block) return block.error();
    if (block->empty()) break;
    if (auto s = x.policy.count_bytes(block->size()); !s) return s.error();
    for (size_t at = 0; at < block->size(); at += kWriteChunk) {
      std::string_view chunk = block->substr(at, kWriteChunk);
      if (item.head.size() < kHeadBytes) item.head.append(chunk.substr(0, kHeadBytes - item.head.size()));
      if (writer) {
        if (auto s = writer->write(chunk); !s) return s.error();
      } else {
        hash->update(chunk);
      }
    }
    item.size += block->size();
    if (writer) x.staged_hashes->wrote(*staged_index, item.size);
    x.position.store(x.reader.position(), std::memory_order_relaxed);
  }
  if (writer) {
    if (auto s = writer->close(false); !s) return s.error();
    x.staged_hashes->closed(*staged_index, item.size);
  } else {
    item.sha256 = hash->hex_digest();
  }
  if (entry.size_known && item.size != entry.size) {
    return make_error(ErrorCode::kCorrupt,
                      "archive entry '" + entry.path + "' declares " + std::to_string(entry.size) + " bytes but holds " +
                          std::to_string(item.size) + " (the archive is truncated; download it again)",
                      archive_path);
  }
  return ok_status();
}

// Every entry, in archive order, into `items`; staged files' digests come from the workers at the end.
Status extract_all(Extraction& x, std::vector<ArchiveItem>& items, const std::string& archive_path) {
  std::vector<size_t> hashed_items;  // staged file index -> items index
  while (true) {
    auto next = x.reader.next();
    if (!next) return next.error();
    if (!next->has_value()) break;
    const ArchiveEntryInfo& entry = **next;
    auto rel = x.policy.admit(entry);
    if (!rel) return rel.error();
    if (rel->empty()) continue;  // the top folder itself

    ArchiveItem item;
    item.rel = *rel;
    item.kind = entry.kind;
    item.link_target = entry.link_target;
    std::string staged = paths::join(x.stage_dir, item.rel);
    if (x.stage) {
      if (auto s = x.stage->make_dirs(paths::parent(staged)); !s) return s.error();
    }
    if (entry.kind == EntryKind::kDirectory) {
      if (x.stage) {
        if (auto s = x.stage->make_dirs(staged); !s) return s.error();
      }
    } else if (entry.kind == EntryKind::kSymlink) {
      if (x.stage) {
        if (auto s = x.stage->symlink(entry.link_target, staged); !s) return s.error();
      }
    } else {
      std::optional<size_t> staged_index;
      if (auto s = extract_file(x, entry, item, archive_path, staged_index); !s) return s;
      if (staged_index) hashed_items.push_back(items.size());
    }
    items.push_back(std::move(item));
  }
  if (!x.staged_hashes) return ok_status();
  auto digests = x.staged_hashes->finish();
  if (!digests) return digests.error();
  for (size_t i = 0; i < hashed_items.size() && i < digests->size(); ++i) items[hashed_items[i]].sha256 = (*digests)[i];
  return ok_status();
}

}  // namespace

Result<ScanResult> scan_archive(const FileSystem& fs, const std::string& archive_path, const ScanOptions& options,
                                const InstallServices& services) {
  ScanResult out;
  out.archive_path = archive_path;
  auto info = fs.stat(archive_path);
  if (!info) return info.error();
  out.archive_bytes = info->size;
  ExtractionLimits limits = options.limits;
  if (limits.archive_bytes == 0) limits.archive_bytes = out.archive_bytes;

  auto reader = services.open_archive(archive_path);
  if (!reader) return reader.error();
  // The archive's own digest: its own thread, its own reads (from the page cache, which the
  // extraction fills or finds filled), so neither side waits on the other's buffers.
  if (options.hash_archive) out.pending_archive_hash = std::make_shared<WholeFileHash>(fs, archive_path, services.new_hasher);

  EntryPolicy policy(limits);
  std::optional<StagedFileHashes> staged_hashes;
  if (options.stage_fs) staged_hashes.emplace(*options.stage_fs, options.stage_dir, services.new_hasher);
  std::atomic<uint64_t> position{0};
  Extraction x{**reader, policy, services.new_hasher, staged_hashes ? &*staged_hashes : nullptr, options.stage_fs,
               options.stage_dir, position};
  {
    ProgressPhase phase(services.progress, options.stage_fs ? "unpacking" : "reading", out.archive_bytes,
                        [&position] { return position.load(std::memory_order_relaxed); });
    if (auto s = extract_all(x, out.items, archive_path); !s) return s.error();
  }
  if (!options.defer_archive_hash) {
    if (auto s = settle_archive_sha256(out, services.progress); !s) return s.error();
  }
  out.top_dir = policy.top_dir();
  out.unpacked_bytes = policy.total_bytes();
  if (out.top_dir.empty()) return make_error(ErrorCode::kCorrupt, "the archive " + archive_path + " is empty", archive_path);
  if (auto s = FinalTree(out.items, store_layout()).check(); !s) return s.error();
  out.report = check_contents(out.items, out.top_dir, options.name);
  return out;
}

Status settle_archive_sha256(ScanResult& scan, Progress* progress) {
  if (!scan.pending_archive_hash) return ok_status();
  std::shared_ptr<WholeFileHash> hash = std::move(scan.pending_archive_hash);
  ProgressPhase phase(progress, "checking sha256", scan.archive_bytes, [&hash] { return hash->bytes_done(); });
  auto digest = hash->result();
  if (!digest) return digest.error();
  scan.archive_sha256 = *digest;
  return ok_status();
}

}  // namespace cudnnup
