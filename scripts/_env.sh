# Shared set-up for scripts/demo.sh and scripts/test.sh: a virtual environment in .venv
# with the build tools, and the system packages a fresh Debian machine lacks.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

install_system_packages() {
  local missing=()
  [ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)
  [ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
  command -v g++ >/dev/null || missing+=(g++)
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "== installing system packages: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
  fi
}

ensure_venv() {
  if [ ! -x .venv/bin/python ]; then
    echo "== creating .venv"
    python3 -m venv .venv
  fi
  # shellcheck disable=SC1091
  source .venv/bin/activate
  python -m pip install -q --upgrade pip
}

install_package() {
  echo "== building and installing meshioplusplus"
  python -m pip install -q nanobind scikit-build-core cmake ninja numpy
  python -m pip install -q --no-build-isolation .
}
