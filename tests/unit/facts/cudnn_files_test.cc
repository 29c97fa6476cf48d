// The one parser of cuDNN file names (facts/cudnn_files.h) and the machine table (facts/machines.h).
#include "facts/cudnn_files.h"

#include <gtest/gtest.h>

#include "facts/machines.h"

namespace cudnnup {
namespace {

TEST(CudnnFileName, EveryKindOfFile) {
  struct Case {
    const char* name;
    CudnnFileKind kind;
    const char* component;
    int major;
    bool soname;
  };
  const Case cases[] = {
      {"libcudnn.so", CudnnFileKind::kDevLink, "cudnn", 0, false},
      {"libcudnn.so.9", CudnnFileKind::kRuntime, "cudnn", 9, true},
      {"libcudnn_ops.so.9.19.0", CudnnFileKind::kRuntime, "ops", 9, false},
      {"libcudnn_engines_tensor_ir.so.9", CudnnFileKind::kRuntime, "engines_tensor_ir", 9, true},
      {"libcudnn_static.a", CudnnFileKind::kStatic, "cudnn", 0, false},
      {"libcudnn_ops_static_v9.a", CudnnFileKind::kStatic, "ops", 9, false},
      {"libcudnn_adv_infer_static_v8.a", CudnnFileKind::kStatic, "adv_infer", 8, false},
      {"cudnn64_9.dll", CudnnFileKind::kRuntime, "cudnn", 9, true},
      {"CUDNN_OPS_INFER64_8.DLL", CudnnFileKind::kRuntime, "ops_infer", 8, true},
      {"cudnn.lib", CudnnFileKind::kImport, "cudnn", 0, false},
      {"cudnn_graph64_9.lib", CudnnFileKind::kImport, "graph", 9, false},
      {"cudnn.h", CudnnFileKind::kHeader, "cudnn", 0, false},
      {"cudnn_version_v9.h", CudnnFileKind::kHeader, "version", 9, false},
      {"cudnn_adv_infer.h", CudnnFileKind::kHeader, "adv_infer", 8, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto n = parse_cudnn_file_name(c.name);
    ASSERT_TRUE(n);
    EXPECT_EQ(n->kind, c.kind);
    EXPECT_EQ(n->component, c.component);
    EXPECT_EQ(n->major, c.major);
    EXPECT_EQ(n->soname, c.soname);
  }
  EXPECT_EQ(parse_cudnn_file_name("libcudnn_ops.so.9.19.0")->version.str(), "9.19.0");
}

TEST(CudnnFileName, RejectsLookAlikesAndNumbersThatDoNotFit) {
  for (const char* name : {"libcudnnfoo.so.9", "libcudnn.so.9.bak~", "libcudnn.sox", "cudnn64_.dll", "cudnn_.dll",
                           "cudnn_ops.dll", "libcublas.so.12", "cudnnup", "cudnn_Frontend.txt",
                           // A major or version part of ten digits once crashed doctor and explain.
                           "cudnn64_99999999999.dll", "libcudnn.so.99999999999", "libcudnn_ops.so.9.99999999999.0",
                           "cudnn_v99999999999.h"}) {
    auto n = parse_cudnn_file_name(name);
    EXPECT_TRUE(!n || n->kind == CudnnFileKind::kHeader) << name;
  }
  EXPECT_EQ(parse_cudnn_file_name("cudnn_v99999999999.h")->major, 0) << "a header whose _v suffix does not fit has no major";
  EXPECT_FALSE(parse_cudnn_library_name("cudnn.h"));
  EXPECT_FALSE(parse_cudnn_library_name("libcudnn_static.a"));
}

TEST(CudnnFileName, NamesBuiltFromTheFacts) {
  EXPECT_EQ(cudnn_sublibrary_names_tried("ops", Version{9, 19, 0}, 9),
            (std::vector<std::string>{"libcudnn_ops.so.9.19.0", "libcudnn_ops.so.9.19", "libcudnn_ops.so.9", "libcudnn_ops.so"}));
  EXPECT_EQ(cudnn_sublibrary_names_tried("ops", std::nullopt, 9),
            (std::vector<std::string>{"libcudnn_ops.so.9", "libcudnn_ops.so"}));
  EXPECT_EQ(cudnn_dev_link_name("cudnn"), "libcudnn.so");
  EXPECT_EQ(cudnn_version_header_names(9).front(), "cudnn_version_v9.h");
  EXPECT_EQ(cudnn_library_glob(8, false), "libcudnn*.so.8");
  EXPECT_EQ(parse_cudnn_shorthand(""), 9);
  EXPECT_EQ(parse_cudnn_shorthand("libcudnn8"), 8);
  EXPECT_EQ(parse_cudnn_shorthand("cudnn"), 9);
  EXPECT_FALSE(parse_cudnn_shorthand("cudnn99999999999"));
  EXPECT_FALSE(parse_cudnn_shorthand("libcudnn.so.9"));
  auto deb = parse_cudnn_deb_list_name("libcudnn9-cuda-13:amd64.list");
  ASSERT_TRUE(deb);
  EXPECT_EQ(deb->package, "libcudnn9-cuda-13");
  EXPECT_EQ(deb->major, 9);
  EXPECT_EQ(deb->cuda_major, 13);
  EXPECT_FALSE(parse_cudnn_deb_list_name("libcudnn9-dev-cuda-13:amd64.list"));
  EXPECT_FALSE(parse_cudnn_deb_list_name("libcudnn99999999999-cuda-13.list"));
}

TEST(Machines, OneNamePerMachineWhereverItIsRead) {
  EXPECT_EQ(elf_machine_name(kElfMachineX86_64), "x86_64");
  EXPECT_EQ(elf_machine_name(kElfMachineAarch64), "aarch64");
  EXPECT_EQ(elf_machine_name(9999), "machine 9999");
  EXPECT_EQ(machine_by_pe(kPeMachineArm64)->name, machine_by_elf(kElfMachineAarch64)->name);
  EXPECT_EQ(pe_machine_name(kPeMachineX64), "x64");
  EXPECT_EQ(pe_machine_name(0x01c4), "machine 0x01c4");
  EXPECT_EQ(multiarch_triplet(kElfMachineX86_64), "x86_64-linux-gnu");
  EXPECT_EQ(multiarch_triplet(kElfMachineX86_64, false), "x86_64-linux-gnux32");
  EXPECT_EQ(multiarch_triplet_of("aarch64"), "aarch64-linux-gnu");
  EXPECT_EQ(elf_machine_of("ppc64le"), kElfMachinePpc64);
  EXPECT_EQ(archive_platform_key_for(*machine_by_name("aarch64"), false), "linux-sbsa");
  EXPECT_EQ(archive_platform_key_for(*machine_by_name("x86_64"), true), "windows-x86_64");
  EXPECT_EQ(archive_arch_machine(ArchiveArch::kSbsa), "aarch64");
  EXPECT_EQ(archive_arch_from_word("x86-64"), ArchiveArch::kX86_64);
  EXPECT_EQ(archive_arch_from_word("aarch64sbsa"), ArchiveArch::kSbsa);
  EXPECT_EQ(legacy_archive_arch_word(ArchiveArch::kX86_64), std::string("x64"));
}

}  // namespace
}  // namespace cudnnup
