#include "platform/helper_thread.h"

namespace cudnnup {

// Left to the scheduler (helper_thread.h). Not measured: there is no Windows machine here.
void keep_off_this_cpu(std::thread&) {}
void allow_every_cpu() {}

}  // namespace cudnnup
