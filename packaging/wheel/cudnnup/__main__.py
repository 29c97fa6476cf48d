"""``python -m cudnnup ARGS``: runs the cudnnup binary this wheel installed, as ruff's
``find_ruff_bin`` does (the environment's scripts folder, then the user scheme's, then the bin/
beside the package root that ``pip install --target`` makes)."""

import os
import sys
import sysconfig


def find_cudnnup_bin():
    exe = "cudnnup" + (sysconfig.get_config_var("EXE") or "")
    scripts_path = os.path.join(sysconfig.get_path("scripts"), exe)
    if os.path.isfile(scripts_path):
        return scripts_path
    if sys.version_info >= (3, 10):
        user_scheme = sysconfig.get_preferred_scheme("user")
    elif os.name == "nt":
        user_scheme = "nt_user"
    else:
        user_scheme = "posix_user"
    user_path = os.path.join(sysconfig.get_path("scripts", scheme=user_scheme), exe)
    if os.path.isfile(user_path):
        return user_path
    target_path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bin", exe)
    if os.path.isfile(target_path):
        return target_path
    raise FileNotFoundError(scripts_path)


if __name__ == "__main__":
    cudnnup = find_cudnnup_bin()
    # exec: cudnnup's exit code, signals and terminal are the caller's, with no Python in between.
    os.execv(cudnnup, [cudnnup, *sys.argv[1:]])
