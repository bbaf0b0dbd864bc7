"""Make the code under test importable without letting it shadow anything: the snapshot of the
workspace goes to the *end* of sys.path (the test command runs Python with -P)."""

import os
import sys

sys.path.append(os.environ["REQBENCH_WORKSPACE"])
