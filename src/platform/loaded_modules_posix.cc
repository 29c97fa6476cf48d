#include <link.h>

#include "platform/loaded_modules.h"

namespace cudnnup {

std::vector<std::string> loaded_module_paths() {
  std::vector<std::string> out;
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t, void* data) {
        auto* list = static_cast<std::vector<std::string>*>(data);
        if (info->dlpi_name && info->dlpi_name[0]) list->emplace_back(info->dlpi_name);
        return 0;
      },
      &out);
  return out;
}

}  // namespace cudnnup
