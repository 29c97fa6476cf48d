// Python and conda environments as users have them, found without running Python.
#include "discover/python_envs.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

class PythonEnvs : public ::testing::Test {
 protected:
  Environment linux_env(std::map<std::string, std::string> vars = {}) {
    Environment e;
    e.vars = std::move(vars);
    e.home = "/home/u";
    e.cwd = "/home/u/project/src";
    return e;
  }
  // A base interpreter install with its own site-packages.
  void base_python(const std::string& prefix) {
    fs.add_file(prefix + "/bin/python3.11", "\x7f" "ELF");
    fs.add_symlink(prefix + "/bin/python3", "python3.11");
    fs.add_dir(prefix + "/lib/python3.11/site-packages");
  }
  // A venv made from `base` (bin/python3 is a symlink to the base interpreter).
  void venv(const std::string& prefix, const std::string& base, bool system_site_packages) {
    fs.add_file(prefix + "/pyvenv.cfg", "home = " + base + "/bin\ninclude-system-site-packages = " +
                                            (system_site_packages ? "true" : "false") + "\nversion = 3.11.9\n");
    fs.add_symlink(prefix + "/bin/python3", base + "/bin/python3.11");
    fs.add_dir(prefix + "/lib/python3.11/site-packages");
  }
  const PythonEnv* find(const std::vector<PythonEnv>& envs, const std::string& prefix) {
    auto it = std::find_if(envs.begin(), envs.end(), [&](const PythonEnv& e) { return e.prefix == prefix; });
    return it == envs.end() ? nullptr : &*it;
  }
  MemoryFileSystem fs;
};

TEST_F(PythonEnvs, AVenvInterpreterStaysTheVenvsAndNeverBecomesTheBase) {
  base_python("/opt/py311");
  venv("/home/u/venv", "/opt/py311", false);
  auto pe = python_env_for(fs, linux_env(), "/home/u/venv/bin/python3");
  ASSERT_TRUE(pe) << pe.error().message;
  EXPECT_EQ(pe->prefix, "/home/u/venv");
  EXPECT_EQ(pe->kind, "venv");
  EXPECT_EQ(pe->interpreter, "/home/u/venv/bin/python3");
  EXPECT_EQ(pe->site_packages, (std::vector<std::string>{"/home/u/venv/lib/python3.11/site-packages"}));
  EXPECT_EQ(pe->base_prefix, "/opt/py311");
  // The base interpreter itself is its own environment.
  auto base = python_env_for(fs, linux_env(), "/opt/py311/bin/python3");
  ASSERT_TRUE(base);
  EXPECT_EQ(base->prefix, "/opt/py311");
}

TEST_F(PythonEnvs, SystemSitePackagesComeAfterTheVenvsOwn) {
  base_python("/opt/py311");
  venv("/home/u/venv", "/opt/py311", true);
  auto pe = python_env_for(fs, linux_env(), "/home/u/venv");
  ASSERT_TRUE(pe) << pe.error().message;
  EXPECT_TRUE(pe->system_site_packages);
  EXPECT_EQ(pe->site_packages, (std::vector<std::string>{"/home/u/venv/lib/python3.11/site-packages",
                                                         "/opt/py311/lib/python3.11/site-packages"}));
  EXPECT_FALSE(python_env_for(fs, linux_env(), "/nowhere/bin/python3"));
}

TEST_F(PythonEnvs, AnUnactivatedDotVenvInAParentIsFound) {
  base_python("/opt/py311");
  venv("/home/u/project/.venv", "/opt/py311", false);
  auto envs = find_python_envs(fs, linux_env(), nullptr);
  const PythonEnv* dot = find(envs, "/home/u/project/.venv");
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->found_via.front(), "./.venv (not activated)");
}

TEST_F(PythonEnvs, PyenvRootAndUvManagedPythons) {
  base_python("/srv/pyenv/versions/3.12.4");
  base_python("/home/u/.local/share/uv/python/cpython-3.12.3-linux-x86_64-gnu");
  base_python("/data/uv-pythons/cpython-3.13.1-linux-x86_64-gnu");
  auto envs = find_python_envs(fs, linux_env({{"PYENV_ROOT", "/srv/pyenv"}}), nullptr);
  ASSERT_NE(find(envs, "/srv/pyenv/versions/3.12.4"), nullptr);
  EXPECT_EQ(find(envs, "/srv/pyenv/versions/3.12.4")->kind, "pyenv");
  ASSERT_NE(find(envs, "/home/u/.local/share/uv/python/cpython-3.12.3-linux-x86_64-gnu"), nullptr);
  auto moved = find_python_envs(fs, linux_env({{"UV_PYTHON_INSTALL_DIR", "/data/uv-pythons"}}), nullptr);
  ASSERT_NE(find(moved, "/data/uv-pythons/cpython-3.13.1-linux-x86_64-gnu"), nullptr);
  EXPECT_EQ(find(moved, "/data/uv-pythons/cpython-3.13.1-linux-x86_64-gnu")->kind, "uv");
}

TEST_F(PythonEnvs, CondaEnvWithoutPythonAndItsPackageRecords) {
  fs.add_file("/home/u/miniconda3/envs/cudnn-only/conda-meta/history", "");
  fs.add_file("/home/u/miniconda3/envs/cudnn-only/conda-meta/cudnn-9.3.0.75-h93bb076_0.json",
              R"({"name": "cudnn", "version": "9.3.0.75", "build": "h93bb076_0", "files": ["lib/libcudnn.so.9"]})");
  fs.add_file("/home/u/miniconda3/envs/cudnn-only/conda-meta/cuda-version-12.4-h3060b56_3.json", R"({"name": "cuda-version"})");
  fs.add_file("/home/u/miniconda3/envs/cudnn-only/conda-meta/zlib-1.3.1-hb9d3cd8_2.json", "{}");
  fs.add_file("/home/u/miniconda3/envs/cudnn-only/lib/libcudnn.so.9", "");
  fs.add_file("/home/u/miniconda3/conda-meta/history", "");
  auto envs = find_python_envs(fs, linux_env(), nullptr);
  const PythonEnv* env = find(envs, "/home/u/miniconda3/envs/cudnn-only");
  ASSERT_NE(env, nullptr) << "a conda env without Python still holds libraries";
  EXPECT_EQ(env->kind, "conda");
  EXPECT_TRUE(env->site_packages.empty());
  ASSERT_EQ(env->conda_packages.size(), 2u);
  EXPECT_EQ(env->conda_packages[0].name, "cuda-version");
  EXPECT_EQ(env->conda_packages[0].version, "12.4");
  EXPECT_EQ(env->conda_packages[1].name, "cudnn");
  EXPECT_EQ(env->conda_packages[1].version, "9.3.0.75");
  EXPECT_EQ(env->conda_packages[1].build, "h93bb076_0");
}

TEST_F(PythonEnvs, CondaRecordNames) {
  CondaPackage p;
  ASSERT_TRUE(parse_conda_record_name("cuda-version-12.4-h3060b56_3.json", &p));
  EXPECT_EQ(p.name, "cuda-version");
  EXPECT_EQ(p.version, "12.4");
  EXPECT_EQ(p.build, "h3060b56_3");
  EXPECT_FALSE(parse_conda_record_name("history", &p));
  EXPECT_FALSE(parse_conda_record_name("-1-2.json", &p));
}

}  // namespace
}  // namespace cudnnup
