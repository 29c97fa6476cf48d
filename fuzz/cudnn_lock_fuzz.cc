// cudnn.lock arrives in a cloned repository: check and install --locked act on it. Whatever
// the bytes, the reader returns an error or a lock whose every path passes check_relative_path;
// a pip or toolkit lock's are lib/NAME or include/NAME; a lock it accepts round-trips through the
// writer unchanged.
#include "base/relative_path.h"
#include "fuzz_input.h"
#include "install/cudnn_lock.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(cudnnup::fuzz::bytes_of(data, size));
  auto lock = cudnnup::lock_from_json(text, "/p/cudnn.lock");
  if (!lock) return 0;
  for (const auto& f : lock->files) {
    if (!cudnnup::check_relative_path(f.path).ok()) cudnnup::fuzz::violation("the lock reader accepted the path " + f.path);
    if (f.size > cudnnup::kMaxLockedFileSize) cudnnup::fuzz::violation("the lock reader accepted a size over the bound");
    // A pip or toolkit lock names one file of the copy's library or header folder, nothing deeper.
    if (lock->form != cudnnup::kLockFormStore && f.path.find('/') != f.path.rfind('/')) {
      cudnnup::fuzz::violation("a " + lock->form + " lock accepted the nested path " + f.path);
    }
  }
  std::string out = cudnnup::lock_to_json(*lock);
  auto again = cudnnup::lock_from_json(out, "/p/cudnn.lock");
  if (!again) cudnnup::fuzz::violation("lock_to_json wrote what lock_from_json refuses: " + again.error().message);
  if (cudnnup::lock_to_json(*again) != out) cudnnup::fuzz::violation("a lock does not round-trip");
  return 0;
}
