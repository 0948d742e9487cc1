#!/usr/bin/env bash
# The README's demo command: sets itself up on a fresh machine, then runs examples/demo.py.
source "$(dirname "$0")/_env.sh"
# The demo needs the build tools and the format libraries, not the test tools (GoogleTest, clang, MPI).
MESHIOPLUSPLUS_DEMO_ONLY=1 install_system_packages
ensure_venv
install_package
python examples/demo.py "$@"
