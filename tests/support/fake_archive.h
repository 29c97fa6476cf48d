// The install pipeline's outside world as test doubles: archives as lists of entries (no
// libarchive, no disk), a deterministic stand-in hash, and a progress recorder. With these the
// whole pipeline (core/install) runs on the in-memory filesystem, in every build.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "install/archive_scan.h"
#include "support/archive_builder.h"
#include "support/memory_fs.h"

namespace cudnnup::testing {

// Archives by path. add() also puts a file at that path into `source` (its bytes are a
// serialisation of the entries, so the archive's digest changes with its contents).
class FakeArchives {
 public:
  void add(MemoryFileSystem& source, const std::string& path, std::vector<FakeEntry> entries);
  // The opener the pipeline takes; counts how often each archive was opened.
  ArchiveOpener opener();
  int times_opened(const std::string& path) const;
  InstallServices services(Progress* progress = nullptr);

 private:
  struct Shared {
    std::map<std::string, std::vector<FakeEntry>> archives;
    std::map<std::string, int> opened;
  };
  std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
};

// FNV-1a, as 64 hex digits: deterministic and cheap, for tests that need some digest.
HasherFactory test_hasher();
std::string test_digest(const std::string& bytes);

// Records every phase and, at its end, what its count said.
class RecordingProgress : public Progress {
 public:
  struct Phase {
    std::string name;
    uint64_t total = 0;
    bool counted = false;
    uint64_t final_count = 0;
  };
  void begin_phase(const std::string& name, uint64_t total, std::function<uint64_t()> done) override;
  void end_phase() override;
  std::vector<Phase> phases;

 private:
  std::function<uint64_t()> done_;
};

// An ELF stub with its machine (e_machine) or type (e_type) changed: an aarch64 "build" of an
// x86_64 library, or an executable under a library's name.
std::string with_elf_machine(std::string elf, uint16_t machine);
std::string with_elf_type(std::string elf, uint16_t type);

}  // namespace cudnnup::testing
