"""Build hook: remember where liborrery-runtime is installed.

At build time (pip install, no network needed) the runtime's libdir is
taken from ORRERY_LIBDIR, else from pkg-config's orrery.pc (installed with
liborrery next to liborrery-runtime), and written into orrery/_config.py,
which the package reads when it looks for the library.  Nothing found: the
package searches ORRERY_RUNTIME_LIB and the loader's path at run time.
"""
import os
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py


def runtime_libdir():
    d = os.environ.get("ORRERY_LIBDIR")
    if d:
        return d
    try:
        out = subprocess.run(["pkg-config", "--variable=libdir", "orrery"],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


class BuildPy(build_py):
    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "orrery", "_config.py")
        with open(target, "w") as f:
            f.write("# Written by setup.py at build time.\n")
            f.write(f"LIBDIR = {runtime_libdir()!r}\n")


setup(cmdclass={"build_py": BuildPy})
