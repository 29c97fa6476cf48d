#include "app/cli/help_words.h"

#include "platform/system.h"

namespace cudnnup {

const HelpWords& help_words(bool windows) {
  static const HelpWords linux_words{
      "$CUDNNUP_HOME, else $XDG_DATA_HOME/cudnnup (~/.local/share/cudnnup)",
      "<store>/versions/<version>+cuda<M>/",
      "no root needed",
      "CUDA_HOME, CUDA_PATH, nvcc on PATH, /usr/local/cuda",
      "/usr/local/cuda-13.0/lib64",
      "~/.venv/lib/python3.12/site-packages/nvidia/cudnn",
      "CUDNN_PATH, CUDNN_HOME, CUDA_HOME, CUDA_PATH, /usr/local/cuda/lib64, /usr/lib/<triplet>, /usr/lib64",
      "LD_LIBRARY_PATH, LIBRARY_PATH and CPATH",
      ".tar.xz/.zip/.tgz",
      "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz",
      "sudo cudnnup install cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz --into /usr/local/cuda-13.0 --dry-run",
  };
  // The folders the CUDA installer and the cuDNN guide for Windows use
  // (https://docs.nvidia.com/deeplearning/cudnn/installation/latest/windows.html).
  static const HelpWords windows_words{
      "%CUDNNUP_HOME%, else %LOCALAPPDATA%\\cudnnup",
      "<store>\\versions\\<version>+cuda<M>\\",
      "no administrator rights needed",
      "CUDA_PATH, CUDA_PATH_V*_*, nvcc on PATH, C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v*",
      "\"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin\"",
      ".venv\\Lib\\site-packages\\nvidia\\cudnn",
      "CUDNN_PATH, CUDNN_HOME, CUDA_HOME, CUDA_PATH",
      "PATH, LIB and INCLUDE (what MSVC's cl and link read)",
      ".zip",  // the Windows build's libarchive has no xz (scripts/build-windows-deps.sh)
      "cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip",
      "cudnnup install cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip --into \"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\" --dry-run"
      "   (in a terminal run as administrator)",
  };
  return windows ? windows_words : linux_words;
}

const HelpWords& help_words() { return help_words(host_os() == OsKind::kWindows); }

}  // namespace cudnnup
