"""Build hook for the cudnnup wheel (hatchling 1.12).

build-wheel.sh stages the binaries as bin/cudnnup and bin/cudnnup-child next to this file and sets
CUDNNUP_WHEEL_GLIBC. The hook

* puts both binaries under ``<name>-<version>.data/scripts/``: pip copies that folder into the
  environment's scripts directory (a venv's bin/) and keeps the executable bit it finds in the zip
  entry. hatchling 1.12 has no ``shared-scripts`` option (1.22+), but ``force_include`` may name
  any path inside the wheel.
* states the platform honestly: the binaries are native, so the wheel is not pure
  (Root-Is-Purelib: false) and its tag is ``py3-none-manylinux_2_<N>_x86_64``: any Python 3, no
  Python ABI used, glibc 2.<N> or newer on x86-64.
"""

import os
import re

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

BINARIES = ("cudnnup", "cudnnup-child")


class CudnnupBinaryHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        glibc = os.environ.get("CUDNNUP_WHEEL_GLIBC", "")
        match = re.fullmatch(r"2\.(\d+)", glibc)
        if not match:
            raise ValueError(f"CUDNNUP_WHEEL_GLIBC must be 2.N (the glibc floor), not {glibc!r}")
        build_data["pure_python"] = False
        build_data["tag"] = f"py3-none-manylinux_2_{match.group(1)}_x86_64"

        data_dir = f"{self.build_config.builder.artifact_project_id}.data"
        for name in BINARIES:
            source = os.path.join(self.root, "bin", name)
            if not os.path.isfile(source):
                raise FileNotFoundError(f"{source} is missing: build-wheel.sh stages it")
            build_data["force_include"][source] = f"{data_dir}/scripts/{name}"
