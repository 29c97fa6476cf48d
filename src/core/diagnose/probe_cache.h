// Probe answers kept between runs (docs/design.md, "The probe cache"). Loading a copy in a child
// process is the longest single part of doctor: the child maps cuDNN's shim and graph library,
// about 12 ms on the build machine, half of a Python start-up. A copy's answer cannot change while
// none of the files it depended on changes, so doctor reuses it then.
//
// An answer is reused only when every file it depended on has exactly the identity it had when
// it was probed: device, inode, size, mtime and the inode's change time (which every write,
// rename, chmod or relink moves, and no user can set back). The files: the shim as requested
// (the link itself, and followed), the copy's directory (an entry added, removed or retargeted
// there moves its times), and every cuDNN file the probe mapped. The whole cache also depends on
// files every probe depends on (cudnnup and its probe program, /etc/ld.so.cache,
// /etc/ld.so.preload), on cudnnup's version and on the environment variables the probe child
// inherits that change how it loads (LD_BIND_NOW, GLIBC_TUNABLES, CUDNN_*, ...): any change there
// and nothing is reused. An answer older than kMaxAgeSeconds is probed again whatever its files
// say: what no file records (a filesystem remounted noexec, a security policy) shows within a day.
//
// Only clean answers are kept: loaded, a version, and every mapped cuDNN file the copy's own. A
// failure, a crash or a mix is probed again on every run, so its report is always fresh.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "base/model.h"
#include "diagnose/prober.h"

namespace cudnnup {

// A file as the cache saw it; `present` false when it did not exist (also a state to compare).
struct FileIdentity {
  std::string path;
  bool present = false;
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t change_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};

// Where the cache lives: $XDG_CACHE_HOME/cudnnup/probes.json, else ~/.cache/cudnnup/probes.json
// (outside the store, which only install, use and uninstall change). Empty, so nothing is read or
// written, when CUDNNUP_NO_PROBE_CACHE is set to anything but "" or "0", on Windows (its file
// information has no change time to trust), or when there is no home.
std::string probe_cache_path(const Environment& env);

// The file's identity now (`follow`: through links, else the link itself). nullopt when the
// filesystem cannot say which file it is (no inode or change time: Windows, the in-memory test
// filesystem) or cannot look: such an answer is never cached.
std::optional<FileIdentity> identify(const FileSystem& fs, const std::string& path, bool follow);

struct CachedProbe {
  ProbeRequest request;
  std::vector<FileIdentity> depends_on;
  LibraryProbe answer;   // as the child gave it (attribution is redone on every run)
  std::string probed_at;  // when the child ran, UTC ("2026-12-07T03:00:00Z")
  int64_t probed_at_seconds = 0;  // the same, in seconds since 1970
};

class ProbeCache {
 public:
  // At most this many answers are kept (the most recently probed); a machine with 200 Python
  // environments holds about 21 copies.
  static constexpr size_t kMaxEntries = 512;
  // Larger files are not read (a full cache is about 1 KB an answer).
  static constexpr size_t kMaxFileBytes = 4 << 20;

  static constexpr int64_t kMaxAgeSeconds = 24 * 3600;

  // `version`: cudnnup's; `context`: the identities every answer depends on, now; `setting`: the
  // inherited environment that changes how the probe loads ("NAME=value" lines, sorted); `now`:
  // seconds since 1970, for the age of an answer.
  ProbeCache(std::string version, std::vector<FileIdentity> context, std::string setting, int64_t now)
      : version_(std::move(version)), context_(std::move(context)), setting_(std::move(setting)), now_(now) {}

  // Reads `path` (a missing, foreign, unreadable or malformed file, or one from another version
  // or context, is an empty cache: doctor then probes, as without one).
  void load(const FileSystem& fs, const std::string& path);
  // The answer kept for `request` when every file it depended on is unchanged; a stale one is
  // dropped (and the file rewritten).
  std::optional<CachedProbe> find(const FileSystem& fs, const ProbeRequest& request);
  // Keeps a fresh answer when it is clean (see above), every file it depends on can be
  // identified, and none of them changed within kSettleNs before the probe started
  // (`started_ns`, nanoseconds since 1970): the kernel stamps change times with a coarse clock,
  // so a file rewritten in place right after the probe could keep every part of its identity.
  // As with git's "racily clean" files, such an answer is simply probed again next time.
  void remember(const FileSystem& fs, const ProbeRequest& request, const LibraryProbe& answer, bool windows,
                const std::string& probed_at, int64_t started_ns);
  static constexpr int64_t kSettleNs = 2'000'000'000;
  bool changed() const { return changed_; }
  const std::vector<CachedProbe>& entries() const { return entries_; }

  std::string to_json() const;
  // Writes it beside `path` (under a name of its own, so two runs never write one file) and
  // renames it into place, so a reader never sees half a file; the
  // cache folder and its cudnnup folder are made when missing, never a missing home. Nothing is
  // written (and ok returned) when the nearest of them that exists is not cudnnup's user's own:
  // `sudo cudnnup doctor` keeping the user's HOME must not leave root's files in the user's cache.
  Status save(FileSystem& fs, const std::string& path) const;

 private:
  void parse(std::string_view text, const std::string& origin);
  std::string version_;
  std::vector<FileIdentity> context_;
  std::string setting_;
  int64_t now_ = 0;
  std::vector<CachedProbe> entries_;
  bool changed_ = false;
};

}  // namespace cudnnup
