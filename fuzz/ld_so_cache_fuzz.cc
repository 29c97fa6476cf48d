// /etc/ld.so.cache in both of glibc's layouts, then the lookup ld.so would do in it.
#include "binfmt/ld_so_cache.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto cache = cudnnup::parse_ld_so_cache(cudnnup::fuzz::bytes_of(data, size));
  if (!cache) return 0;
  for (const auto& e : cache->entries) (void)e.describe_flags();
  (void)cudnnup::ld_cache_lookup(*cache, "libcudnn.so.9", true, 62, {"x86-64-v3", "x86-64-v2"});
  if (!cache->entries.empty()) (void)cudnnup::ld_cache_lookup(*cache, cache->entries.front().name, true, 183);
  return 0;
}
