#!/usr/bin/env bash
# Installs the Debian packages shardsim builds with, if any is missing. Non-interactive and
# idempotent: a second run checks with dpkg and installs nothing.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  libboost-graph-dev libyaml-cpp-dev libeigen3-dev libspdlog-dev libfmt-dev libcli11-dev
  nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
  python3
  python3-dev pybind11-dev python3-pybind11  # the Python module (docs/python.md)
  python3-pytest  # its tests (ctest python.pytest)
  python3-jsonschema  # tests: every golden report validates against `shardsim schema report`
  python3-matplotlib  # optional: scripts/plot.py and the figures of scripts/reproduce.sh (skipped without it)
  libopenmpi-dev openmpi-bin  # optional: sweeps over MPI ranks (docs/distributed.md)
)
if [ "${SHARDSIM_WITH_FORMAT:-0}" = 1 ]; then packages+=(clang-format); fi
# The libFuzzer targets (./scripts/fuzz.sh) build with clang and its runtime libraries.
if [ "${SHARDSIM_WITH_FUZZ:-0}" = 1 ]; then packages+=(clang libclang-rt-dev); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "shardsim: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
