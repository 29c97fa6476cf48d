// cudnnStatus_t decoded by the major version of the library that returned it (verify, bench;
// explain reads the same numbers from data/error_catalogue.json): the numbers of
// 8.x (0..14, cudnn_ops_infer.h) and 9.x (category*1000 + detail, cudnn_graph.h) differ, so
// 3 is BAD_PARAM in 8.x and nothing in 9.x.
#pragma once

#include <string>

namespace cudnnup {

struct CudnnStatusDecoded {
  int code = 0;
  int major = 0;          // the library major it was decoded for
  std::string name;       // "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH", or "unknown status 1234"
  std::string category;   // 9.x: "uncategorized", "bad param", "not supported", "internal", "execution"
  std::string meaning;    // one sentence for a person
  std::string fix;        // what to do, when we know; empty otherwise
  bool known = false;
};

CudnnStatusDecoded decode_cudnn_status(int code, int major);

}  // namespace cudnnup
