// Names of files found anywhere cudnnup scans: libraries, headers, deb package lists, pip
// dist-info folders, and the shorthands a user types.
#include "facts/cudnn_files.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view name = cudnnup::fuzz::bytes_of(data, size);
  auto file = cudnnup::parse_cudnn_file_name(name);
  auto lib = cudnnup::parse_cudnn_library_name(name);
  if (lib && !file) cudnnup::fuzz::violation("a library name that is not a cuDNN file name");
  if (lib) {
    (void)cudnnup::cudnn_library_file_name(lib->component, lib->major, lib->windows);
    (void)cudnnup::cudnn_sublibrary_names_tried(lib->component, lib->version, lib->major);
    (void)cudnnup::cudnn_dev_link_name(lib->component);
    (void)cudnnup::cudnn_version_header_names(lib->major);
  }
  (void)cudnnup::parse_cudnn_shorthand(name);
  (void)cudnnup::parse_cudnn_deb_list_name(name);
  (void)cudnnup::parse_cudnn_dist_info(name);
  return 0;
}
