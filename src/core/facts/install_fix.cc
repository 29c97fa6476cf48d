#include "facts/install_fix.h"

#include "facts/known_archives.h"

namespace cudnnup {

FixStep install_fix(const Version& version, int cuda_major, const std::string& into) {
  if (!version.known() || version.parts.size() < 3 || (cuda_major <= 0 && into.empty())) {
    return fix::step("Reinstall " + (version.known() ? "cuDNN " + version.str() : std::string("this cuDNN copy")) +
                     " from NVIDIA's archive for the CUDA major of your toolkit or framework");
  }
  std::vector<std::string> args = {"install", version.truncated(3).str()};
  if (cuda_major > 0) args.insert(args.end(), {"--cuda", std::to_string(cuda_major)});
  if (!into.empty()) args.insert(args.end(), {"--into", into});
  return fix::cudnnup(std::move(args));
}

FixStep install_newest_fix(int cudnn_major, int cuda_major, bool windows) {
  // Offered only where NVIDIA published such a build; `install 9` then takes the newest one the
  // mirror lists (or, offline, the table's), so the command stays right as releases come out.
  if (!newest_known_release(builtin_known_archives(), cudnn_major, cuda_major, windows)) {
    return fix::step("Install a cuDNN " + std::to_string(cudnn_major) + " release built for CUDA " + std::to_string(cuda_major) +
                     " from NVIDIA's archive");
  }
  return fix::cudnnup({"install", std::to_string(cudnn_major), "--cuda", std::to_string(cuda_major)});
}

std::vector<FixStep> elevated_cudnnup_steps(std::vector<std::string> args, bool windows) {
  if (!windows) {
    args.insert(args.begin(), "cudnnup");
    return {fix::sudo(std::move(args))};
  }
  return {fix::step("In a terminal opened with \"Run as administrator\" (Start > Terminal (Admin)):"), fix::cudnnup(std::move(args))};
}

}  // namespace cudnnup
