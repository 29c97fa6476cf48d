#include "app/commands/archive_scan.h"

#if CUDNNUP_HAVE_INSTALL

#include <vector>

#include "adapters/archive_reader.h"
#include "platform/sha256.h"
#include "app/commands/background_hasher.h"
#include "base/paths.h"

namespace cudnnup {

Result<ScanResult> scan_archive(const FileSystem& fs, const std::string& archive_path, const ScanOptions& options) {
  ScanResult out;
  out.archive_path = archive_path;
  auto info = fs.stat(archive_path);
  if (!info) return info.error();
  out.archive_bytes = info->size;
  ExtractionLimits limits = options.limits;
  if (limits.archive_bytes == 0) limits.archive_bytes = out.archive_bytes;

  auto reader = ArchiveReader::open(archive_path, options.hash_archive);
  if (!reader) return reader.error();
  EntryPolicy policy(limits);
  constexpr size_t kWriteChunk = 128 << 10;
  FileSystem* stage = options.stage_fs;
  auto staged = [&](const std::string& rel) { return paths::join(options.stage_dir, rel); };
  BackgroundHasher hasher;           // every file's sha256, on a second thread
  std::vector<size_t> hashed_items;  // hasher file index -> out.items index

  while (true) {
    auto next = reader->next();
    if (!next) return next.error();
    if (!next->has_value()) break;
    const ArchiveEntryInfo& entry = **next;
    auto rel = policy.admit(entry);
    if (!rel) return rel.error();
    if (rel->empty()) continue;  // the top folder itself

    ArchiveItem item;
    item.rel = *rel;
    item.kind = entry.kind;
    item.link_target = entry.link_target;
    if (stage) {
      if (auto s = stage->make_dirs(paths::parent(staged(item.rel))); !s) return s.error();
    }
    if (entry.kind == EntryKind::kDirectory) {
      if (stage) {
        if (auto s = stage->make_dirs(staged(item.rel)); !s) return s.error();
      }
    } else if (entry.kind == EntryKind::kSymlink) {
      if (stage) {
        if (auto s = stage->symlink(entry.link_target, staged(item.rel)); !s) return s.error();
      }
    } else {
      std::unique_ptr<FileWriter> writer;
      if (stage) {
        auto w = stage->create_file(staged(item.rel));
        if (!w) return w.error();
        writer = std::move(*w);
      }
      hashed_items.push_back(out.items.size());
      hasher.begin_file();
      while (true) {
        auto block = reader->read_block();  // no copy: straight from libarchive's buffer
        if (!block) return block.error();
        if (block->empty()) break;
        if (auto s = policy.count_bytes(block->size()); !s) return s.error();
        // Written in pieces of at most 128 KiB: larger write() calls were several times slower
        // on the test machine (docs/benchmarks.md).
        for (size_t at = 0; at < block->size(); at += kWriteChunk) {
          std::string_view chunk = block->substr(at, kWriteChunk);
          hasher.add(chunk);
          if (item.head.size() < kHeadBytes) item.head.append(chunk.substr(0, kHeadBytes - item.head.size()));
          if (writer) {
            if (auto s = writer->write(chunk); !s) return s.error();
          }
        }
        item.size += block->size();
      }
      if (writer) {
        if (auto s = writer->close(false); !s) return s.error();
      }
      if (entry.size_known && item.size != entry.size) {
        return make_error(ErrorCode::kCorrupt,
                          "archive entry '" + entry.path + "' declares " + std::to_string(entry.size) + " bytes but holds " +
                              std::to_string(item.size) + " (the archive is truncated; download it again)",
                          archive_path);
      }
    }
    out.items.push_back(std::move(item));
  }
  std::vector<std::string> digests = hasher.finish();
  for (size_t i = 0; i < hashed_items.size(); ++i) out.items[hashed_items[i]].sha256 = digests[i];
  if (options.hash_archive) {
    auto h = reader->finish_file_hash();
    if (!h) return h.error();
    out.archive_sha256 = *h;
    if (out.archive_sha256.empty()) {  // a .zip: its reader seeks, so hash it in its own pass
      auto whole = sha256_file(fs, archive_path);
      if (!whole) return whole.error();
      out.archive_sha256 = *whole;
    }
  }
  if (auto s = policy.finish(); !s) return s.error();
  out.top_dir = policy.top_dir();
  out.unpacked_bytes = policy.total_bytes();
  if (out.top_dir.empty()) return make_error(ErrorCode::kCorrupt, "the archive " + archive_path + " is empty", archive_path);
  out.report = check_contents(out.items, out.top_dir, options.name);
  return out;
}

}  // namespace cudnnup

#endif  // CUDNNUP_HAVE_INSTALL
