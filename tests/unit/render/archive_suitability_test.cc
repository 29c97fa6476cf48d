// What archive-info says about this machine (check_suitability): whole sentences, and the GPU
// floor of the release from data/rules.json, not a threshold of its own.
#include "app/render/archive_render.h"

#include <gtest/gtest.h>

#include "facts/machines.h"
#include "install/archive_name.h"

namespace cudnnup {
namespace {

Report suitability_machine_with(const std::string& gpu, Version cc, Version driver_cuda) {
  Report r;
  r.os = "linux";
  r.driver.present = true;
  r.driver.version_text = "580.95.05";
  r.driver.cuda_version = driver_cuda;
  r.driver.gpus.push_back(Gpu{0, gpu, cc, 16ull << 30});
  Toolkit t;
  t.root = "/usr/local/cuda-12.4";
  t.version = Version{12, 4};
  r.toolkits.push_back(t);
  return r;
}

ArchiveName name_of(const std::string& file) {
  auto n = parse_archive_name(file);
  EXPECT_TRUE(n.ok());
  return n.ok() ? *n : ArchiveName{};
}

const SuitabilityCheck* find_in(const std::vector<SuitabilityCheck>& checks, const std::string& id) {
  for (const auto& c : checks) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

TEST(ArchiveSuitability, EveryMessageIsASentence) {
  // This machine's own archive name, so the platform and architecture checks pass.
  std::string file = std::string("cudnn-linux-") + archive_arch_name(ArchiveArch::kX86_64) + "-9.19.0.56_cuda13-archive.tar.xz";
  ContentReport contents;
  Report r = suitability_machine_with("Tesla P100-PCIE-16GB", Version{6, 0}, Version{12, 2});
  for (const auto& c : check_suitability(name_of(file), contents, false, &r, "")) {
    SCOPED_TRACE(c.id);
    ASSERT_FALSE(c.message.empty());
    EXPECT_TRUE(c.message[0] >= 'A' && c.message[0] <= 'Z') << c.message;
    EXPECT_EQ(c.message.back(), '.') << c.message;
  }
  auto checks = check_suitability(name_of(file), contents, false, &r, "");
  ASSERT_NE(find_in(checks, "driver"), nullptr);
  EXPECT_EQ(find_in(checks, "driver")->message, "The driver 580.95.05 supports CUDA up to 12.2, but a CUDA 13 build needs a newer driver.");
  ASSERT_NE(find_in(checks, "toolkit"), nullptr);
  EXPECT_EQ(find_in(checks, "toolkit")->status, "warning");
}

TEST(ArchiveSuitability, TheGpuFloorIsTheReleasesOwn) {
  ContentReport contents;
  Report pascal = suitability_machine_with("NVIDIA GeForce GTX 1070", Version{6, 1}, Version{13, 0});
  // cuDNN 9.10.2 for CUDA 12 still supports Pascal; 9.11.0 does not; a CUDA 13 build never did.
  auto gpu = [&](const std::string& file) {
    auto checks = check_suitability(name_of(file), contents, false, &pascal, "");
    const SuitabilityCheck* g = find_in(checks, "gpu");
    EXPECT_NE(g, nullptr) << file;
    return g ? *g : SuitabilityCheck{};
  };
  EXPECT_EQ(gpu("cudnn-linux-x86_64-9.10.2.21_cuda12-archive.tar.xz").status, "ok");
  EXPECT_EQ(gpu("cudnn-linux-x86_64-9.10.2.21_cuda12-archive.tar.xz").message,
            "GPU 0 (NVIDIA GeForce GTX 1070) has compute capability 6.1, which this cuDNN supports.");
  auto eleven = gpu("cudnn-linux-x86_64-9.11.0.98_cuda12-archive.tar.xz");
  EXPECT_EQ(eleven.status, "error");
  EXPECT_NE(eleven.message.find("but this cuDNN needs 7.5 or newer (https://"), std::string::npos) << eleven.message;
  EXPECT_EQ(gpu("cudnn-linux-x86_64-9.12.0.46_cuda13-archive.tar.xz").status, "error");
}

}  // namespace
}  // namespace cudnnup
