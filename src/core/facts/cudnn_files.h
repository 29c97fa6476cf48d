// cuDNN's file names, recognised and built in this one place:
// run-time libraries (libcudnn_ops.so.9, libcudnn_ops.so.9.14.0, cudnn_ops64_9.dll), the
// link-time names (libcudnn.so, cudnn.lib, cudnn64_9.lib, libcudnn_ops_static_v9.a) and headers
// (cudnn.h, cudnn_version.h, cudnn_ops_v9.h, cudnn_ops_infer.h); and the version out of a header.
// Every other file recognises cuDNN files through these functions, never by its own pattern
// (tests/style/one_fact_test.py checks that).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/version.h"

namespace cudnnup {

enum class CudnnFileKind {
  kRuntime,  // a shared library the loader opens: libcudnn_ops.so.9(.14.0), cudnn_ops64_9.dll
  kDevLink,  // libcudnn.so / libcudnn_ops.so: used only at link time
  kStatic,   // libcudnn_static.a, libcudnn_ops_static_v9.a
  kImport,   // cudnn.lib, cudnn64_9.lib, cudnn_ops64_9.lib (Windows import libraries)
  kHeader,   // cudnn.h, cudnn_version.h, cudnn_ops_v9.h, cudnn_adv_infer.h
};

struct CudnnFileName {
  CudnnFileKind kind = CudnnFileKind::kRuntime;
  // "cudnn" for the shim (and cudnn.h), else the part after "cudnn_": "ops", "cnn_infer",
  // "engines_precompiled"; headers: "version", "backend", "ops", ... Lower case.
  std::string component;
  int major = 0;          // 9 from libcudnn_ops.so.9 / cudnn_ops64_9.dll / cudnn_v9.h; 0 when the name has none
  Version version;        // full version when the name carries it: libcudnn.so.9.14.0 -> 9.14.0
  bool windows = false;   // a DLL or import library
  bool soname = false;    // exactly the name the loader asks for: libcudnn_ops.so.9, cudnn_ops64_9.dll
  bool dev_link = false;  // kind == kDevLink
  bool shim() const { return component == "cudnn"; }
};
using CudnnLibraryName = CudnnFileName;

// Any cuDNN file by its name (a path is not accepted: pass the last component). nullopt for
// everything else, including names whose numbers do not fit (libcudnn.so.99999999999).
std::optional<CudnnFileName> parse_cudnn_file_name(std::string_view file_name);
// Only run-time libraries and dev links: libcudnn.so, libcudnn.so.9, libcudnn_ops.so.9.14.0,
// cudnn64_9.dll, cudnn_ops_infer64_8.dll.
std::optional<CudnnFileName> parse_cudnn_library_name(std::string_view file_name);

// A library file as a search list sees it: lib*.so* and lib*.a on Linux; *.dll on Windows
// (`link_time`: *.lib). cuDNN's own files are such names too.
bool is_library_file_name(std::string_view file_name, bool windows, bool link_time = false);

// The file name a component has for a major: ("ops", 9, linux) -> "libcudnn_ops.so.9".
std::string cudnn_library_file_name(const std::string& component, int major, bool windows);
// The names cuDNN's shim dlopen()s a Linux sub-library by, in order: for 9.19.0 "ops":
// libcudnn_ops.so.9.19.0, libcudnn_ops.so.9.19, libcudnn_ops.so.9, libcudnn_ops.so (the last
// seen with LD_DEBUG=libs when every other name was missing; docs/commands/which.md).
std::vector<std::string> cudnn_sublibrary_names_tried(const std::string& component, const std::optional<Version>& version,
                                                       int major);
// A Linux library's unversioned development link: "libcudnn.so", "libcudnn_ops.so" (what
// PaddlePaddle builds without pip CUDA libraries dlopen()).
std::string cudnn_dev_link_name(const std::string& component);
// The version headers to read for a copy of `major` (0 = unknown), best first:
// cudnn_version_v9.h, cudnn_version.h, cudnn_v9.h, cudnn.h (7.x and older keep the macros in cudnn.h).
std::vector<std::string> cudnn_version_header_names(int major);
// The shim's name as a person writes it in a message: "libcudnn.so.N" / "cudnn64_N.dll".
std::string cudnn_shim_pattern(bool windows);
// A shell glob for every run-time library file of a major, for printed commands:
// "libcudnn*.so.9" / "cudnn*64_9.dll".
std::string cudnn_library_glob(int major, bool windows);
// The short ways a person names the shim: "", "cudnn", "libcudnn" (the default major, 9), "8",
// "cudnn8", "libcudnn8" -> that major; nullopt for anything else (a real file name).
std::optional<int> parse_cudnn_shorthand(std::string_view text);

// Debian/Ubuntu's package file lists: "libcudnn9-cuda-13:amd64.list" -> {"libcudnn9-cuda-13", 9, 13}.
struct CudnnDebPackage {
  std::string package;
  int major = 0;
  int cuda_major = 0;  // 0 when the name has no -cuda-N
};
std::optional<CudnnDebPackage> parse_cudnn_deb_list_name(std::string_view file_name);

// "nvidia_cudnn_cu13-9.19.0.56.dist-info" -> {13, 9.19.0.56}: the pip wheel's metadata dir.
struct CudnnDistInfo {
  int cuda_major = 0;
  Version version;
};
std::optional<CudnnDistInfo> parse_cudnn_dist_info(std::string_view dir_name);

struct HeaderVersion {
  Version version;            // MAJOR.MINOR.PATCHLEVEL
  int max_sm_major = -1, max_sm_minor = -1;  // 9.x only
};

// Reads CUDNN_MAJOR / CUDNN_MINOR / CUDNN_PATCHLEVEL from cudnn_version.h (8.x, 9.x) or cudnn.h
// (7.x and older). Computes from the parts, never from the CUDNN_VERSION expression.
std::optional<HeaderVersion> parse_cudnn_header_version(std::string_view text);

}  // namespace cudnnup
