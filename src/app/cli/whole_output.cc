#include "app/cli/whole_output.h"

#include <chrono>
#include <ctime>
#include <iostream>

namespace cudnnup {

int print_whole_output(AppContext& ctx, const std::string& text, int code) {
  std::cout << text << std::flush;
  if (!std::cout) return report_error(ctx, make_error(ErrorCode::kIo, "could not write the output to standard output"));
  return code;
}

std::string utc_now_text() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char text[32] = "";
  if (const std::tm* t = std::gmtime(&now)) std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", t);
  return text;
}

}  // namespace cudnnup
