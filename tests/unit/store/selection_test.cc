#include "store/selection.h"

#include <gtest/gtest.h>

#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

class SelectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* id : {"9.19.0.56+cuda13", "9.14.0.64+cuda13", "9.1.0.70+cuda12", "8.9.7.29+cuda12"}) {
      fs.add_dir(layout.version_dir(id) + "/lib");
    }
    installed = *list_installed(fs, layout);
    env.cwd = "/home/u/proj/sub/deeper";
    fs.add_dir(env.cwd);
    state.global = "9.14.0.64+cuda13";
  }

  Result<Selection> select(const std::optional<std::string>& command_line = std::nullopt) {
    auto request = find_request(fs, env, state, layout, command_line);
    if (!request) return request.error();
    return resolve_request(*request, installed, layout);
  }

  MemoryFileSystem fs;
  StoreLayout layout{"/store"};
  Environment env;
  StoreState state;
  std::vector<StoreVersionId> installed;
};

TEST_F(SelectionTest, GlobalDefaultWhenNothingElse) {
  auto s = select();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->id.id, "9.14.0.64+cuda13");
  EXPECT_EQ(s->request.source, SelectionSource::kGlobal);
  EXPECT_EQ(s->request.origin, "/store/state.json");
  EXPECT_EQ(s->dir, "/store/versions/9.14.0.64+cuda13");
}

TEST_F(SelectionTest, NearestPinFileBeatsOuterPinAndGlobal) {
  fs.add_file("/home/u/.cudnn-version", "8\n");
  auto outer = select();
  ASSERT_TRUE(outer.ok());
  EXPECT_EQ(outer->id.id, "8.9.7.29+cuda12");
  EXPECT_EQ(outer->request.origin, "/home/u/.cudnn-version");

  fs.add_file("/home/u/proj/.cudnn-version", "# this project needs 9.1\n\n  9.1+cuda12  \n");
  auto inner = select();
  ASSERT_TRUE(inner.ok());
  EXPECT_EQ(inner->id.id, "9.1.0.70+cuda12");
  EXPECT_EQ(inner->request.source, SelectionSource::kPinFile);
  EXPECT_EQ(inner->request.origin, "/home/u/proj/.cudnn-version");
  EXPECT_EQ(inner->request.spec, "9.1+cuda12");
}

TEST_F(SelectionTest, EnvironmentBeatsPinFilesAndCommandLineBeatsAll) {
  fs.add_file("/home/u/proj/.cudnn-version", "9.1\n");
  env.vars["CUDNNUP_VERSION"] = "9.19";
  auto s = select();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->id.id, "9.19.0.56+cuda13");
  EXPECT_EQ(s->request.source, SelectionSource::kEnvironment);

  auto c = select(std::string("8"));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->id.id, "8.9.7.29+cuda12");
  EXPECT_EQ(c->request.source, SelectionSource::kCommandLine);
}

TEST_F(SelectionTest, EmptyEnvironmentVariableCountsAsUnset) {
  env.vars["CUDNNUP_VERSION"] = "  ";
  auto s = select();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->request.source, SelectionSource::kGlobal);
}

TEST_F(SelectionTest, UnreadablePinFileIsAnErrorNamingIt) {
  fs.add_file("/home/u/proj/.cudnn-version", "9.1\n");
  fs.set_unreadable("/home/u/proj/.cudnn-version");
  auto s = select();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kPermission);
  EXPECT_EQ(s.error().path, "/home/u/proj/.cudnn-version");
  EXPECT_NE(s.error().message.find("/home/u/proj/.cudnn-version"), std::string::npos);
  // The environment variable still overrides it: the pin file is not read then.
  env.vars["CUDNNUP_VERSION"] = "9.19";
  EXPECT_TRUE(select().ok());
}

TEST_F(SelectionTest, EmptyOrMalformedPinFilesAreErrorsNamingThem) {
  fs.add_file("/home/u/proj/.cudnn-version", "# nothing yet\n\n");
  auto empty = select();
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().path, "/home/u/proj/.cudnn-version");
  EXPECT_NE(empty.error().message.find("names no version"), std::string::npos);

  fs.add_file("/home/u/proj/.cudnn-version", "cudnn nine\n");
  auto bad = select();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("'cudnn nine'"), std::string::npos);
}

TEST_F(SelectionTest, HostilePinFilesAreNeverEchoedNorReadWhole) {
  // Another file's first line (a link to /etc/shadow) and terminal escapes are described, not quoted.
  fs.add_file("/home/u/proj/.cudnn-version", "root:$6$SECRET:19000:0:99999:7:::\n");
  auto secret = select();
  ASSERT_FALSE(secret.ok());
  EXPECT_EQ(secret.error().message.find("SECRET"), std::string::npos) << secret.error().message;
  EXPECT_NE(secret.error().message.find("not shown"), std::string::npos) << secret.error().message;
  fs.add_file("/home/u/proj/.cudnn-version", "\x1b]0;owned\x07 9.19\n");
  auto escapes = select();
  ASSERT_FALSE(escapes.ok());
  EXPECT_EQ(escapes.error().message.find('\x1b'), std::string::npos) << escapes.error().message;
  // Far larger than any pin: refused by its size, before it is read.
  fs.add_file("/home/u/proj/.cudnn-version", "9.19\n" + std::string(kMaxPinFileBytes, '#'));
  auto big = select();
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().code, ErrorCode::kUsage);
  EXPECT_NE(big.error().message.find("bytes"), std::string::npos) << big.error().message;
  // A pin that is a directory is not a pin.
  ASSERT_TRUE(fs.remove("/home/u/proj/.cudnn-version").ok());
  fs.add_dir("/home/u/proj/.cudnn-version");
  auto dir = select();
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.error().message.find("not a regular file"), std::string::npos) << dir.error().message;
}

TEST_F(SelectionTest, SelectedButMissingNamesTheSourceAndTheInstalledList) {
  fs.add_file("/home/u/proj/.cudnn-version", "9.2\n");
  auto s = select();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kNotFound);
  EXPECT_NE(s.error().message.find("/home/u/proj/.cudnn-version"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("9.19.0.56+cuda13, 9.14.0.64+cuda13"), std::string::npos);

  env.vars["CUDNNUP_VERSION"] = "nine";
  auto bad_env = select();
  ASSERT_FALSE(bad_env.ok());
  EXPECT_EQ(bad_env.error().code, ErrorCode::kUsage);
  EXPECT_NE(bad_env.error().message.find("CUDNNUP_VERSION"), std::string::npos);
}

TEST_F(SelectionTest, NothingSelected) {
  state.global.reset();
  auto s = select();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("no cuDNN version is selected"), std::string::npos);
}

// `system` (no cudnnup version: the machine's own copies) can come from each source; a pin file
// that says so ends the search upward like any pin, and resolving it is not a version.
TEST_F(SelectionTest, SystemFromEverySourceAndAPinThatSaysItStopsTheSearch) {
  fs.add_file("/home/u/.cudnn-version", "9.1\n");
  fs.add_file("/home/u/proj/.cudnn-version", "# the machine's own cuDNN here\nsystem\n");
  auto request = find_request(fs, env, state, layout);
  ASSERT_TRUE(request.ok()) << request.error().message;
  EXPECT_TRUE(request->system());
  EXPECT_EQ(request->source, SelectionSource::kPinFile);
  EXPECT_EQ(request->origin, "/home/u/proj/.cudnn-version") << "the nearer pin wins, the outer 9.1 is never read";
  EXPECT_EQ(request->short_origin(), "from /home/u/proj/.cudnn-version");
  auto resolved = select();
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.error().code, ErrorCode::kNotFound);
  EXPECT_NE(resolved.error().message.find("this machine's own cuDNN copies"), std::string::npos) << resolved.error().message;

  env.vars["CUDNNUP_VERSION"] = "9.19";
  EXPECT_FALSE(find_request(fs, env, state, layout)->system()) << "the environment beats the pin";
  env.vars["CUDNNUP_VERSION"] = " system ";
  fs.add_file("/home/u/proj/.cudnn-version", "9.1\n");
  auto by_env = find_request(fs, env, state, layout);
  ASSERT_TRUE(by_env.ok());
  EXPECT_TRUE(by_env->system());
  EXPECT_EQ(by_env->source, SelectionSource::kEnvironment);
  auto by_command_line = find_request(fs, env, state, layout, std::string("system"));
  ASSERT_TRUE(by_command_line.ok());
  EXPECT_TRUE(by_command_line->system());
  EXPECT_EQ(by_command_line->source, SelectionSource::kCommandLine);

  env.vars.erase("CUDNNUP_VERSION");
  ASSERT_TRUE(fs.remove("/home/u/proj/.cudnn-version").ok());
  ASSERT_TRUE(fs.remove("/home/u/.cudnn-version").ok());
  state.global = "system";
  auto global = find_request(fs, env, state, layout);
  ASSERT_TRUE(global.ok());
  EXPECT_TRUE(global->system());
  EXPECT_EQ(global->short_origin(), "the global default");
  EXPECT_EQ(state.global_version(), std::nullopt) << "no version for `current` to point at";
  state.global.reset();
  EXPECT_FALSE(find_request(fs, env, state, layout)->system()) << "nothing selected is not system";
}

TEST_F(SelectionTest, WindowsPathsWalkUpToTheDrive) {
  env.os = OsKind::kWindows;
  env.cwd = "C:/Users/u/proj/sub";
  fs.add_dir(env.cwd);
  fs.add_file("C:/Users/u/.cudnn-version", "9.1\n");
  auto s = select();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->request.origin, "C:/Users/u/.cudnn-version");
}

}  // namespace
}  // namespace cudnnup
