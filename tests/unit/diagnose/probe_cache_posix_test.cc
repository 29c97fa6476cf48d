// The probe cache (core/diagnose/probe_cache.h) and CachedProber: an answer is reused only while
// every file it depended on keeps its identity, only clean answers are kept, and a file that is
// not cudnnup's own, not whole, or from another version or context is no cache at all. On the
// real disk (identities need inodes and change times; the in-memory filesystem has none, and
// there nothing is cached).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <thread>

#include "base/caching_filesystem.h"
#include "diagnose/cached_prober.h"
#include "diagnose/probe_cache.h"
#include "platform/real_filesystem.h"
#include "support/fake_prober.h"
#include "support/fixture_libs.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::FakeProber;
using testing::TempDir;
using testing::make_symlink;
using testing::write_text;

int64_t clock_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Probes "started" well after the files were written, so they count as settled.
int64_t settled_probe_start() { return clock_now_ns() + 2 * ProbeCache::kSettleNs; }

// The cache's "now" for these tests: after the (pretended) probe start.
int64_t cache_now() { return settled_probe_start() / 1'000'000'000 + 1; }

ProbeCache cache_of(std::vector<FileIdentity> context, std::string setting = "", int64_t now = cache_now()) {
  return ProbeCache("1.2.3", std::move(context), std::move(setting), now);
}

// A copy at DIR/lib: libcudnn.so.9 -> libcudnn.so.9.19.0, and its graph library.
struct ProbedCopy {
  explicit ProbedCopy(const TempDir& tmp) : lib(tmp / "lib") {
    write_text(lib + "/libcudnn.so.9.19.0", "shim 9.19");
    make_symlink("libcudnn.so.9.19.0", lib + "/libcudnn.so.9");
    write_text(lib + "/libcudnn_graph.so.9", "graph 9.19");
  }
  ProbeRequest request() const { return {lib + "/libcudnn.so.9", lib}; }
  LibraryProbe clean_answer() const {
    LibraryProbe p;
    p.loaded = true;
    p.version_number = 91900;
    p.version = decode_cudnn_version_number(91900);
    p.cudart_version = decode_cuda_version_number(13000);
    p.max_device_version = 1210;
    p.mapped_files = {lib + "/libcudnn.so.9.19.0", lib + "/libcudnn_graph.so.9"};
    return p;
  }
  std::string lib;
};

std::vector<FileIdentity> probe_context_in(const FileSystem& fs, const TempDir& tmp) {
  write_text(tmp / "probe-program", "the child");
  return {*identify(fs, tmp / "probe-program", true), *identify(fs, tmp / "absent-preload", true)};
}

// One copy, the cache's context, a fake prober that answers the copy cleanly, and where the
// cache file goes: what most tests here start from.
struct ProbeScene {
  explicit ProbeScene(const std::string& cache_file = "probes.json")
      : fs(make_real_filesystem()), copy(tmp), context(probe_context_in(*fs, tmp)), file(tmp / cache_file) {
    inner.set_cudnn(copy.request().library_path, copy.clean_answer());
  }
  TempDir tmp;
  std::unique_ptr<FileSystem> fs;
  ProbedCopy copy;
  std::vector<FileIdentity> context;
  FakeProber inner;
  std::string file;
};

// One doctor run: loads the cache file, asks through CachedProber, saves. Returns the answer.
LibraryProbe doctor_probe_once(FileSystem& fs, FakeProber& inner, const std::vector<FileIdentity>& context,
                      const std::string& cache_file, const ProbeRequest& request, int64_t started_ns,
                      bool fresh = false) {
  ProbeCache cache = cache_of(context);
  cache.load(fs, cache_file);
  CachedProber prober(inner, cache, fs, false, "2026-12-07T03:00:00Z", started_ns, fresh);
  LibraryProbe answer = prober.probe_cudnn(request);
  if (cache.changed()) {
    EXPECT_TRUE(cache.save(fs, cache_file));
  }
  return answer;
}

TEST(ProbeCache, ReusesAnAnswerWhileNoFileItDependedOnChanged) {
  ProbeScene scene("cache/probes.json");
  auto& [tmp, fs, copy, context, inner, file] = scene;

  LibraryProbe first = doctor_probe_once(*fs, inner, context, file, copy.request(), settled_probe_start());
  EXPECT_EQ(inner.cudnn_requests.size(), 1u);
  EXPECT_TRUE(first.cached_from.empty()) << "probed in this run";
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0) << "the cache is written";
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "readable by its owner only";

  LibraryProbe second = doctor_probe_once(*fs, inner, context, file, copy.request(), settled_probe_start());
  EXPECT_EQ(inner.cudnn_requests.size(), 1u) << "no second child";
  EXPECT_EQ(second.cached_from, "2026-12-07T03:00:00Z");
  EXPECT_TRUE(second.loaded);
  EXPECT_EQ(second.version.str(), "9.19.0");
  EXPECT_EQ(second.version_number, 91900);
  EXPECT_EQ(second.cudart_version.str(), "13.0");
  EXPECT_EQ(second.max_device_version, 1210);
  EXPECT_EQ(second.mapped_files, copy.clean_answer().mapped_files);

  LibraryProbe fresh = doctor_probe_once(*fs, inner, context, file, copy.request(), settled_probe_start(), /*fresh=*/true);
  EXPECT_EQ(inner.cudnn_requests.size(), 2u) << "--fresh probes again";
  EXPECT_TRUE(fresh.cached_from.empty());
}

// Each change a user or a package manager makes to a copy ends the reuse of its answer.
TEST(ProbeCache, AnyChangeToTheCopysFilesProbesAgain) {
  struct Change {
    const char* what;
    void (*apply)(const ProbedCopy&);
  };
  const Change changes[] = {
      {"a mapped file rewritten in place, same size",
       [](const ProbedCopy& c) { write_text(c.lib + "/libcudnn_graph.so.9", "graph 9.20"); }},
      {"a mapped file replaced by another (rename over it)",
       [](const ProbedCopy& c) {
         write_text(c.lib + "/new-graph", "graph 9.19");
         ASSERT_EQ(::rename((c.lib + "/new-graph").c_str(), (c.lib + "/libcudnn_graph.so.9").c_str()), 0);
       }},
      {"the shim's link pointed elsewhere",
       [](const ProbedCopy& c) {
         write_text(c.lib + "/libcudnn.so.9.20.0", "shim 9.20");
         ASSERT_EQ(::unlink((c.lib + "/libcudnn.so.9").c_str()), 0);
         make_symlink("libcudnn.so.9.20.0", c.lib + "/libcudnn.so.9");
       }},
      {"a file added to the copy's directory", [](const ProbedCopy& c) { write_text(c.lib + "/libcudnn_ops.so.9", "ops"); }},
      {"a mapped file removed", [](const ProbedCopy& c) { ASSERT_EQ(::unlink((c.lib + "/libcudnn_graph.so.9").c_str()), 0); }},
      {"a mapped file's mode changed", [](const ProbedCopy& c) { ASSERT_EQ(::chmod((c.lib + "/libcudnn_graph.so.9").c_str(), 0600), 0); }},
  };
  for (const auto& change : changes) {
    SCOPED_TRACE(change.what);
    ProbeScene scene;
    auto& [tmp, fs, copy, context, inner, file] = scene;
    doctor_probe_once(*fs, inner, context, file, copy.request(), settled_probe_start());
    doctor_probe_once(*fs, inner, context, file, copy.request(), settled_probe_start());
    ASSERT_EQ(inner.cudnn_requests.size(), 1u) << "reused before the change";
    // The kernel stamps change times with a coarse clock (a few ms): the files were written just
    // now, so let it tick before changing them. (In a real run the answer is kept only for files
    // that changed kSettleNs before the probe, so a later change always moves the time.)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    change.apply(copy);
    LibraryProbe after = doctor_probe_once(*fs, inner, context, file, copy.request(), settled_probe_start());
    EXPECT_EQ(inner.cudnn_requests.size(), 2u) << "probed again after the change";
    EXPECT_TRUE(after.cached_from.empty());
  }
}

TEST(ProbeCache, KeepsOnlyCleanAnswers) {
  struct Case {
    const char* what;
    void (*spoil)(LibraryProbe&, const std::string& other_dir);
  };
  const Case cases[] = {
      {"did not load", [](LibraryProbe& p, const std::string&) { p = LibraryProbe{}; p.failure = "cannot open"; }},
      {"the child crashed",
       [](LibraryProbe& p, const std::string&) { p.loaded = false; p.failure = "the probe process crashed (signal 11)"; }},
      {"no version", [](LibraryProbe& p, const std::string&) { p.version_number = 0; p.version = Version{}; }},
      {"a cuDNN file from another copy was mapped",
       [](LibraryProbe& p, const std::string& other) { p.mapped_files[1] = other + "/libcudnn_graph.so.9"; }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    TempDir tmp;
    auto fs = make_real_filesystem();
    ProbedCopy copy(tmp);
    write_text(tmp / "other/libcudnn_graph.so.9", "graph 9.14");
    auto context = probe_context_in(*fs, tmp);
    LibraryProbe answer = copy.clean_answer();
    c.spoil(answer, tmp / "other");
    FakeProber inner;
    inner.set_cudnn(copy.request().library_path, answer);
    const std::string file = tmp / "probes.json";
    doctor_probe_once(*fs, inner, context, file, copy.request(), settled_probe_start());
    doctor_probe_once(*fs, inner, context, file, copy.request(), settled_probe_start());
    EXPECT_EQ(inner.cudnn_requests.size(), 2u) << "probed on every run";
  }
}

// A file changed just before the probe could be changed again within the same tick of the
// kernel's clock without its identity moving: such an answer is not kept.
TEST(ProbeCache, AnAnswerAboutFilesThatJustChangedIsNotKept) {
  ProbeScene scene;
  auto& [tmp, fs, copy, context, inner, file] = scene;
  doctor_probe_once(*fs, inner, context, file, copy.request(), clock_now_ns());
  doctor_probe_once(*fs, inner, context, file, copy.request(), clock_now_ns());
  EXPECT_EQ(inner.cudnn_requests.size(), 2u);
}

TEST(ProbeCache, AnotherVersionOrContextReusesNothing) {
  ProbeScene scene;
  auto& [tmp, fs, copy, context, inner, file] = scene;
  doctor_probe_once(*fs, inner, context, file, copy.request(), settled_probe_start());

  ProbeCache other_version("1.2.4", context, "", cache_now());
  other_version.load(*fs, file);
  EXPECT_TRUE(other_version.entries().empty()) << "another cudnnup version";

  // The probe program replaced (a new cudnnup installed over the old one).
  write_text(tmp / "new-program", "the new child");
  ASSERT_EQ(::rename((tmp / "new-program").c_str(), (tmp / "probe-program").c_str()), 0);
  ProbeCache new_program = cache_of({*identify(*fs, tmp / "probe-program", true), context[1]});
  new_program.load(*fs, file);
  EXPECT_TRUE(new_program.entries().empty()) << "another probe program";

  // An /etc/ld.so.preload that appears (here: the context's absent file).
  write_text(tmp / "absent-preload", "/evil.so");
  ProbeCache preload = cache_of({context[0], *identify(*fs, tmp / "absent-preload", true)});
  preload.load(*fs, file);
  EXPECT_TRUE(preload.entries().empty()) << "a preload file that appeared";

  ProbeCache same = cache_of(context);
  same.load(*fs, file);
  EXPECT_EQ(same.entries().size(), 1u) << "the same version and context";
}

// The cache decides what doctor reports: only a whole file cudnnup's own user wrote counts.
TEST(ProbeCache, AFileThatIsNotWholeOrNotOwnIsNoCache) {
  ProbeScene scene;
  auto& [tmp, fs, copy, context, inner, file] = scene;
  doctor_probe_once(*fs, inner, context, file, copy.request(), settled_probe_start());
  const std::string good = fs->read_file(file, 1 << 20).value();
  auto entries_after = [&](const std::string& path) {
    ProbeCache cache = cache_of(context);
    cache.load(*fs, path);
    return cache.entries().size();
  };
  ASSERT_EQ(entries_after(file), 1u);

  ASSERT_EQ(::chmod(file.c_str(), 0620), 0);
  EXPECT_EQ(entries_after(file), 0u) << "group-writable";
  ASSERT_EQ(::chmod(file.c_str(), 0600), 0);

  make_symlink(file, tmp / "link.json");
  EXPECT_EQ(entries_after(tmp / "link.json"), 0u) << "a link";

  for (size_t cut : {size_t{0}, size_t{1}, good.size() / 2, good.size() - 3}) {
    write_text(tmp / "cut.json", good.substr(0, cut));
    EXPECT_EQ(entries_after(tmp / "cut.json"), 0u) << "cut at " << cut;
  }
  std::string wrong_type = good;
  wrong_type.replace(wrong_type.find("\"version_number\":91900"), 22, "\"version_number\":\"9\"");
  write_text(tmp / "type.json", wrong_type);
  EXPECT_EQ(entries_after(tmp / "type.json"), 0u) << "a field of the wrong type";
  write_text(tmp / "garbage.json", std::string("\xff\xfe{]", 4));
  EXPECT_EQ(entries_after(tmp / "garbage.json"), 0u);
}

TEST(ProbeCache, NothingIsCachedWhereFilesHaveNoIdentity) {
  testing::MemoryFileSystem fs;
  fs.add_file("/lib/libcudnn.so.9", "shim");
  fs.add_file("/lib/libcudnn_graph.so.9", "graph");
  EXPECT_FALSE(identify(fs, "/lib/libcudnn.so.9", true)) << "no inode or change time";
  LibraryProbe answer;
  answer.loaded = true;
  answer.version_number = 91900;
  answer.mapped_files = {"/lib/libcudnn.so.9", "/lib/libcudnn_graph.so.9"};
  ProbeCache cache = cache_of({});
  cache.remember(fs, {"/lib/libcudnn.so.9", "/lib"}, answer, false, "t", settled_probe_start());
  EXPECT_TRUE(cache.entries().empty());
}

// A shim reached through a link in another folder (update-alternatives): retargeting that link
// changes nothing in the copy's folder, and still the copy is probed again.
TEST(ProbeCache, AShimLinkRetargetedInAnotherFolderProbesAgain) {
  TempDir tmp;
  auto fs = make_real_filesystem();
  const std::string lib = tmp / "lib";
  write_text(lib + "/libcudnn.so.9.19.0", "shim 9.19");
  write_text(lib + "/libcudnn.so.9.20.0", "shim 9.20");
  make_symlink(lib + "/libcudnn.so.9.19.0", tmp / "alternatives/libcudnn");
  make_symlink(tmp / "alternatives/libcudnn", lib + "/libcudnn.so.9");
  auto context = probe_context_in(*fs, tmp);
  const ProbeRequest request{lib + "/libcudnn.so.9", lib};
  LibraryProbe answer;
  answer.loaded = true;
  answer.version_number = 91900;
  answer.version = decode_cudnn_version_number(91900);
  answer.mapped_files = {lib + "/libcudnn.so.9.19.0"};
  FakeProber inner;
  inner.set_cudnn(request.library_path, answer);
  const std::string file = tmp / "probes.json";
  doctor_probe_once(*fs, inner, context, file, request, settled_probe_start());
  doctor_probe_once(*fs, inner, context, file, request, settled_probe_start());
  ASSERT_EQ(inner.cudnn_requests.size(), 1u);
  ASSERT_EQ(::unlink((tmp / "alternatives/libcudnn").c_str()), 0);
  make_symlink(lib + "/libcudnn.so.9.20.0", tmp / "alternatives/libcudnn");
  doctor_probe_once(*fs, inner, context, file, request, settled_probe_start());
  EXPECT_EQ(inner.cudnn_requests.size(), 2u);
}

// What no file records (a remount, a security policy) shows within kMaxAgeSeconds; a clock set
// back makes an answer from the future, also probed again; and the inherited loader settings
// are part of the answer.
TEST(ProbeCache, AnOldAnswerAnotherSettingOrAClockSetBackReusesNothing) {
  ProbeScene scene;
  auto& [tmp, fs, copy, context, inner, file] = scene;
  const int64_t started = settled_probe_start();
  {
    ProbeCache cache = cache_of(context, "LD_BIND_NOW=1\n");
    CachedProber prober(inner, cache, *fs, false, "t", started, false);
    prober.probe_cudnn(copy.request());
    ASSERT_TRUE(cache.save(*fs, file));
  }
  const int64_t probed = started / 1'000'000'000;
  auto kept = [&](const std::string& setting, int64_t now) {
    ProbeCache cache = cache_of(context, setting, now);
    cache.load(*fs, file);
    return cache.entries().size();
  };
  EXPECT_EQ(kept("LD_BIND_NOW=1\n", probed + 60), 1u);
  EXPECT_EQ(kept("LD_BIND_NOW=1\n", probed + ProbeCache::kMaxAgeSeconds), 1u) << "a day old: still good";
  EXPECT_EQ(kept("LD_BIND_NOW=1\n", probed + ProbeCache::kMaxAgeSeconds + 1), 0u) << "older than a day";
  EXPECT_EQ(kept("LD_BIND_NOW=1\n", probed - 60), 0u) << "from the future";
  EXPECT_EQ(kept("", probed + 60), 0u) << "LD_BIND_NOW no longer set";
  EXPECT_EQ(kept("LD_BIND_NOW=1\nGLIBC_TUNABLES=glibc.rtld.x=1\n", probed + 60), 0u) << "another setting";
}

// --fresh probes the copies it sees again and keeps what the cache knows of the others.
TEST(ProbeCache, FreshKeepsTheAnswersOfCopiesItDoesNotSee) {
  TempDir tmp_a, tmp_b;
  auto fs = make_real_filesystem();
  ProbedCopy a(tmp_a), b(tmp_b);
  auto context = probe_context_in(*fs, tmp_a);
  FakeProber inner;
  inner.set_cudnn(a.request().library_path, a.clean_answer());
  inner.set_cudnn(b.request().library_path, b.clean_answer());
  const std::string file = tmp_a / "probes.json";
  doctor_probe_once(*fs, inner, context, file, a.request(), settled_probe_start());
  doctor_probe_once(*fs, inner, context, file, b.request(), settled_probe_start());
  doctor_probe_once(*fs, inner, context, file, a.request(), settled_probe_start(), /*fresh=*/true);
  EXPECT_EQ(inner.cudnn_requests.size(), 3u);
  LibraryProbe again = doctor_probe_once(*fs, inner, context, file, b.request(), settled_probe_start());
  EXPECT_EQ(inner.cudnn_requests.size(), 3u) << "b's answer survived a's --fresh";
  EXPECT_FALSE(again.cached_from.empty());
}

// The file is read by the filesystem's own read_regular (no link, the user's own, nobody else
// may write it), which the caching view forwards rather than re-implementing with a second open.
TEST(ProbeCache, AFileOfAnotherUserIsNoCache) {
  TempDir tmp;
  auto disk = make_real_filesystem();
  ProbedCopy copy(tmp);
  auto context = probe_context_in(*disk, tmp);
  FakeProber inner;
  inner.set_cudnn(copy.request().library_path, copy.clean_answer());
  doctor_probe_once(*disk, inner, context, tmp / "probes.json", copy.request(), settled_probe_start());
  testing::MemoryFileSystem mem;
  mem.add_file("/home/u/.cache/cudnnup/probes.json", disk->read_file(tmp / "probes.json").value());
  auto entries = [&] {
    ProbeCache cache = cache_of(context);
    cache.load(CachingFileSystem(mem), "/home/u/.cache/cudnnup/probes.json");
    return cache.entries().size();
  };
  EXPECT_EQ(entries(), 1u);
  mem.set_other_owner("/home/u/.cache/cudnnup/probes.json");
  EXPECT_EQ(entries(), 0u) << "another user's file";
}

// `sudo cudnnup doctor` keeping the user's HOME, or a missing home: nothing is written.
TEST(ProbeCache, WritesOnlyIntoItsUsersOwnExistingHome) {
  const std::string file = "/home/u/.cache/cudnnup/probes.json";
  ProbeCache cache = cache_of({});
  {
    testing::MemoryFileSystem fs;
    fs.add_dir("/home/u");
    ASSERT_TRUE(cache.save(fs, file));
    EXPECT_TRUE(fs.node(file)) << "the cache folders are made in an existing home";
    EXPECT_FALSE(fs.node(file + ".tmp"));
  }
  {
    testing::MemoryFileSystem fs;
    fs.add_dir("/home");
    ASSERT_TRUE(cache.save(fs, file));
    EXPECT_FALSE(fs.node("/home/u")) << "a missing home is not made";
  }
  for (const char* foreign : {"/home/u", "/home/u/.cache", "/home/u/.cache/cudnnup"}) {
    SCOPED_TRACE(foreign);
    testing::MemoryFileSystem fs;
    fs.add_dir("/home/u/.cache/cudnnup");
    fs.set_other_owner(foreign);
    ASSERT_TRUE(cache.save(fs, file)) << "not an error: the next run probes";
    EXPECT_EQ(fs.node(file) != nullptr, std::string(foreign) != "/home/u/.cache/cudnnup")
        << "the nearest existing folder decides";
  }
  {
    testing::MemoryFileSystem fs;
    fs.add_dir("/home/u/.cache");
    fs.set_mode("/home/u/.cache", 0777);
    ASSERT_TRUE(cache.save(fs, file));
    EXPECT_FALSE(fs.node(file)) << "a cache folder anyone may write to";
  }
}

TEST(ProbeCache, KeepsAtMostItsLimitDroppingTheOldest) {
  TempDir tmp;
  auto fs = make_real_filesystem();
  ProbedCopy copy(tmp);
  ProbeCache cache = cache_of({});
  for (size_t i = 0; i < ProbeCache::kMaxEntries + 3; ++i) {
    ProbeRequest r = copy.request();
    r.library_path += "." + std::to_string(i);  // as many shims as entries, all of one directory
    make_symlink("libcudnn.so.9.19.0", r.library_path);
    cache.remember(*fs, r, copy.clean_answer(), false, std::to_string(i), settled_probe_start());
  }
  ASSERT_EQ(cache.entries().size(), ProbeCache::kMaxEntries);
  EXPECT_EQ(cache.entries().front().probed_at, "3");
}

}  // namespace
}  // namespace cudnnup
