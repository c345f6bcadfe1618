"""version.py is the `tf.version` namespace: the version strings TF puts there.

`VERSION` is tapeflow's own version (`tapeflow.__version__`, pyproject.toml's
version; tests/framework/test_root_names.py keeps the three equal), not the
version of the TF whose API tapeflow follows.
"""

import platform

__all__ = ["VERSION", "GIT_VERSION", "COMPILER_VERSION"]

VERSION = "0.1.0"
# What TF reports for a build made outside a git checkout.
GIT_VERSION = "unknown"
# TF gives the C++ compiler it was built with; tapeflow's compiled code is the
# interpreter's, so this is the compiler that built Python ('GCC 12.2.0').
COMPILER_VERSION = platform.python_compiler()
