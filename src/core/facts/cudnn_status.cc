#include "facts/cudnn_status.h"

namespace cudnnup {
namespace {

struct StatusFacts {
  int code;
  const char* name;
  const char* meaning;
  const char* fix;
};

constexpr const char* kFixReinstall =
    "Reinstall this cuDNN copy so every libcudnn* file comes from the same release "
    "(NVIDIA's archive of that release, or the package manager), and remove stray libcudnn* files from "
    "other releases on LD_LIBRARY_PATH/PATH.";
constexpr const char* kFixDriver =
    "Install an NVIDIA driver that supports this cuDNN's CUDA major (cudnnup's doctor report shows both), or "
    "install the cuDNN build for the CUDA major your driver supports.";
constexpr const char* kFixNewerCudnn =
    "This GPU is newer than this cuDNN supports: install a newer cuDNN release.";
constexpr const char* kFixPrereq =
    "A library cuDNN needs at run time is missing (libz, NVRTC or cuBLAS for cuDNN 9 engines): install it "
    "next to the copy or on the loader path; cudnnup's doctor report names the missing file.";
constexpr const char* kFixGpuError =
    "The GPU failed while running a kernel: check `nvidia-smi` and the kernel log (Xid errors); reboot or "
    "reset the GPU if it is in a bad state.";
constexpr const char* kFixMemory = "Free GPU memory (other processes show in `nvidia-smi`) and try again.";
constexpr const char* kFixBug =
    "This is a cuDNN limitation or a cudnnup bug for this case: report it with the output of cudnnup's verify --json.";

// cuDNN 8.x (and 7.x, the same prefix): cudnn_ops_infer.h.
constexpr StatusFacts kV8[] = {
    {0, "CUDNN_STATUS_SUCCESS", "success", ""},
    {1, "CUDNN_STATUS_NOT_INITIALIZED", "cuDNN could not initialise (usually the CUDA runtime failed to start)", kFixDriver},
    {2, "CUDNN_STATUS_ALLOC_FAILED", "a memory allocation failed", kFixMemory},
    {3, "CUDNN_STATUS_BAD_PARAM", "an argument was invalid", kFixBug},
    {4, "CUDNN_STATUS_INTERNAL_ERROR", "cuDNN hit an internal error", kFixBug},
    {5, "CUDNN_STATUS_INVALID_VALUE", "a value was invalid", kFixBug},
    {6, "CUDNN_STATUS_ARCH_MISMATCH", "the GPU's architecture is not supported by this function", kFixNewerCudnn},
    {7, "CUDNN_STATUS_MAPPING_ERROR", "GPU memory mapping (texture) failed", kFixGpuError},
    {8, "CUDNN_STATUS_EXECUTION_FAILED", "a GPU kernel failed to run", kFixGpuError},
    {9, "CUDNN_STATUS_NOT_SUPPORTED", "this configuration is not supported", kFixBug},
    {10, "CUDNN_STATUS_LICENSE_ERROR", "license check failed", ""},
    {11, "CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING", "a run-time prerequisite library is missing", kFixPrereq},
    {12, "CUDNN_STATUS_RUNTIME_IN_PROGRESS", "asynchronous work still in progress", ""},
    {13, "CUDNN_STATUS_RUNTIME_FP_OVERFLOW", "numerical overflow during computation", ""},
    {14, "CUDNN_STATUS_VERSION_MISMATCH", "the sub-libraries (ops/cnn/adv, infer/train) come from different cuDNN versions", kFixReinstall},
};

// cuDNN 9.x: cudnn_graph.h.
constexpr StatusFacts kV9[] = {
    {0, "CUDNN_STATUS_SUCCESS", "success", ""},
    {1001, "CUDNN_STATUS_NOT_INITIALIZED", "cuDNN could not initialise (usually the CUDA runtime failed to start)", kFixDriver},
    {1002, "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH", "the sub-libraries come from different cuDNN versions", kFixReinstall},
    {1003, "CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH", "a serialized plan was made by another cuDNN version", ""},
    {1004, "CUDNN_STATUS_DEPRECATED", "the function is deprecated", ""},
    {1005, "CUDNN_STATUS_LICENSE_ERROR", "license check failed", ""},
    {1006, "CUDNN_STATUS_RUNTIME_IN_PROGRESS", "asynchronous work still in progress", ""},
    {1007, "CUDNN_STATUS_RUNTIME_FP_OVERFLOW", "numerical overflow during computation", ""},
    {1008, "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED", "a cuDNN sub-library could not be loaded", kFixReinstall},
    {2000, "CUDNN_STATUS_BAD_PARAM", "an argument was invalid", kFixBug},
    {2001, "CUDNN_STATUS_INVALID_VALUE", "a value was invalid", kFixBug},
    {2002, "CUDNN_STATUS_BAD_PARAM_NULL_POINTER", "a null pointer was passed", kFixBug},
    {2003, "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER", "a pointer was misaligned", kFixBug},
    {2004, "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED", "a descriptor was not finalized", kFixBug},
    {2005, "CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND", "a value was out of bounds", kFixBug},
    {2006, "CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT", "a buffer was too small", kFixBug},
    {2007, "CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH", "stream mismatch", kFixBug},
    {2008, "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH", "tensor shapes do not match", kFixBug},
    {2009, "CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES", "duplicated entries", kFixBug},
    {2010, "CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE", "wrong attribute type", kFixBug},
    {2011, "CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH", "CUDA graph mismatch", kFixBug},
    {2012, "CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE", "wrong descriptor type", kFixBug},
    {3000, "CUDNN_STATUS_NOT_SUPPORTED", "this configuration is not supported", kFixBug},
    {3001, "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN", "no engine supports this graph", kFixBug},
    {3002, "CUDNN_STATUS_NOT_SUPPORTED_SHAPE", "no engine supports this shape", kFixBug},
    {3003, "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE", "no engine supports this data type", kFixBug},
    {3004, "CUDNN_STATUS_NOT_SUPPORTED_LAYOUT", "no engine supports this layout", kFixBug},
    {3005, "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER", "the NVIDIA driver is too old for this cuDNN's CUDA version", kFixDriver},
    {3006, "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART", "the CUDA runtime is incompatible with this cuDNN", kFixDriver},
    {3007, "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH", "this cuDNN has no kernels for this GPU's architecture", kFixNewerCudnn},
    {3008, "CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING", "a run-time prerequisite library is missing", kFixPrereq},
    {3009, "CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE", "a cuDNN sub-library needed here is unavailable", kFixReinstall},
    {3010, "CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT", "not enough shared memory for this kernel", kFixBug},
    {3011, "CUDNN_STATUS_NOT_SUPPORTED_PADDING", "this padding is not supported", kFixBug},
    {3012, "CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM", "kernel launch parameters not supported", kFixBug},
    {3013, "CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API", "CUDA graph native API not supported", kFixBug},
    {3014, "CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE", "invalid dynamic shape", kFixBug},
    {4000, "CUDNN_STATUS_INTERNAL_ERROR", "cuDNN hit an internal error", kFixBug},
    {4001, "CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED", "run-time kernel compilation (NVRTC) failed", kFixPrereq},
    {4002, "CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE", "an unexpected value inside cuDNN", kFixBug},
    {4003, "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED", "a host memory allocation failed", kFixMemory},
    {4004, "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED", "a GPU memory allocation failed", kFixMemory},
    {4005, "CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM", "a kernel launch was rejected", kFixBug},
    {4006, "CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED", "texture creation failed", kFixGpuError},
    {5000, "CUDNN_STATUS_EXECUTION_FAILED", "a GPU kernel failed to run", kFixGpuError},
    {5001, "CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER", "the CUDA driver failed while running a kernel", kFixGpuError},
    {5002, "CUDNN_STATUS_EXECUTION_FAILED_CUBLAS", "cuBLAS failed", kFixPrereq},
    {5003, "CUDNN_STATUS_EXECUTION_FAILED_CUDART", "the CUDA runtime failed", kFixGpuError},
    {5004, "CUDNN_STATUS_EXECUTION_FAILED_CURAND", "cuRAND failed", kFixGpuError},
};

const char* category_of_v9(int code) {
  switch (code / 1000) {
    case 0: return "success";
    case 1: return "uncategorized";
    case 2: return "bad param";
    case 3: return "not supported";
    case 4: return "internal";
    case 5: return "execution";
  }
  return "unknown";
}

}  // namespace

CudnnStatusDecoded decode_cudnn_status(int code, int major) {
  CudnnStatusDecoded info;
  info.code = code;
  info.major = major;
  const bool v9 = major >= 9;
  info.category = v9 ? category_of_v9(code) : (code == 0 ? "success" : "error");
  auto search = [&](const StatusFacts* begin, const StatusFacts* end) {
    for (const StatusFacts* e = begin; e != end; ++e) {
      if (e->code == code) {
        info.name = e->name;
        info.meaning = e->meaning;
        info.fix = e->fix;
        info.known = true;
        return;
      }
    }
  };
  if (v9) {
    search(std::begin(kV9), std::end(kV9));
  } else {
    search(std::begin(kV8), std::end(kV8));
  }
  if (!info.known) {
    info.name = "unknown cuDNN " + std::to_string(major) + ".x status " + std::to_string(code);
    info.meaning = v9 ? std::string("an error in the '") + info.category + "' category" : "an error this cudnnup does not know";
  }
  return info;
}

}  // namespace cudnnup
