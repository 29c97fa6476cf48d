// Loading a shared library by absolute path and finding its symbols. Only probe children call
// this for NVIDIA libraries (see app/probe_*.cc).
#pragma once

#include <string>

#include "base/result.h"

namespace cudnnup {

class DynamicLibrary {
 public:
  static Result<DynamicLibrary> open(const std::string& absolute_path);
  DynamicLibrary(DynamicLibrary&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
  DynamicLibrary& operator=(DynamicLibrary&&) = delete;
  DynamicLibrary(const DynamicLibrary&) = delete;
  ~DynamicLibrary();

  void* symbol(const char* name) const;  // nullptr when absent
  template <typename Fn>
  Fn function(const char* name) const {
    return reinterpret_cast<Fn>(symbol(name));
  }
  // Keeps the library loaded for the life of the process (probes exit right after).
  void leak() { handle_ = nullptr; }

 private:
  explicit DynamicLibrary(void* handle) : handle_(handle) {}
  void* handle_ = nullptr;
};

}  // namespace cudnnup
