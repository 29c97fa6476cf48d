"""The C++ tags Universal Ctags reports, for the style tests (function_length, one_class_name,
unity_names): one place that runs it, in JSON, and says what to install when it is missing."""
import json
import shutil
import subprocess
import sys


def cxx_tags(test, options, paths):
    """Each tag (a dict) ctags reports for `paths` with `options`; None, after a message naming
    `test`, when ctags is not installed (the callers then exit 2, not 1: no finding)."""
    if not shutil.which("ctags"):
        print(f"{test}: ctags is missing; run scripts/install-deps.sh (universal-ctags)", file=sys.stderr)
        return None
    out = subprocess.run(["ctags", "--languages=C++", *options, "--output-format=json", "-f", "-", *paths],
                         check=True, capture_output=True, text=True).stdout
    tags = (json.loads(line) for line in out.splitlines())
    return [t for t in tags if t.get("_type") == "tag"]
