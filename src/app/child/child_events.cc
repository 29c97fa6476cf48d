#include "app/child/child_events.h"

#include "platform/loaded_modules.h"

namespace cudnnup {

std::vector<std::string> ChildEvents::modules(const std::string& when) {
  std::vector<std::string> files = loaded_module_paths();
  emit({{"event", "modules"}, {"when", when}, {"files", files}});
  return files;
}

}  // namespace cudnnup
