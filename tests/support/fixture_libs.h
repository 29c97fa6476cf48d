// Finds the stub cuDNN libraries built by tests/fixtures/CMakeLists.txt and lays them out in
// temporary directories shaped like real installations.
#pragma once

#include <string>
#include <vector>

namespace cudnnup::testing {

// Path of a built stub: fixture_lib("v9.19.0", "libcudnn_ops.so.9").
std::string fixture_lib(const std::string& variant, const std::string& file_name);

// The 9.x sub-library component names, and the 8.x ones.
const std::vector<std::string>& cudnn9_components();
const std::vector<std::string>& cudnn8_components();

// A fresh temporary directory, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

// Real-disk helpers for fixture trees (tests only; they abort the test on failure). copy_file,
// write_text and make_symlink create the missing parent directories of what they make.
void make_dirs(const std::string& path);
void copy_file(const std::string& from, const std::string& to);
void write_text(const std::string& path, const std::string& text);
void make_symlink(const std::string& target, const std::string& link);

// Copies a whole stub set (shim + every sub-library of that major) into `lib_dir` using the
// SONAME file names (libcudnn.so.9, libcudnn_ops.so.9, ...). With `versioned_names`, the real files
// get the full version (libcudnn.so.9.14.0) and the SONAME and .so names become links, as the
// Debian/RPM packages and redist archives lay them out.
void install_stub_set(const std::string& variant, const std::string& lib_dir, bool versioned_names = false,
                      bool dev_links = true);

// A cuDNN 9 copy whose shim forwards its version calls to libcudnn_graph loaded by bare name,
// like the real shim (tests/fixtures/forwarding_shim.c): "9.19.0" (CUDA 13) or "9.14.0" (CUDA 12),
// every file under its SONAME name, and with `header` a cudnn_version.h in lib_dir/../include.
void install_forwarding_set(const std::string& version, const std::string& lib_dir, bool header = true);

// A cudnn_version.h with the given version.
std::string cudnn_version_header(int major, int minor, int patch);

}  // namespace cudnnup::testing
