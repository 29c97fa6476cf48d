#include <dlfcn.h>

#include "platform/dynamic_library.h"

namespace cudnnup {

void use_safe_library_search() {}

Result<DynamicLibrary> DynamicLibrary::open(const std::string& absolute_path) {
  dlerror();
  void* handle = dlopen(absolute_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    return make_error(ErrorCode::kIo, why ? why : ("cannot load " + absolute_path), absolute_path);
  }
  return DynamicLibrary(handle);
}

DynamicLibrary::~DynamicLibrary() {
  if (handle_) dlclose(handle_);
}

void* DynamicLibrary::symbol(const char* name) const { return handle_ ? dlsym(handle_, name) : nullptr; }

}  // namespace cudnnup
