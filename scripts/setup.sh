#!/bin/sh
# Installs what is missing (Debian 12 packages, as root), configures and
# builds layoutc into build/. Safe to run again.
set -eu
cd "$(dirname "$0")/.."

PKGS="cmake ninja-build gcc make re2c bison llvm-19-dev libzstd-dev llvm-19-tools clang-19 libclang-rt-19-dev \
libdnnl-dev mlir-19-tools python3 python3-numpy python3-scipy python3-pytest pkg-config git groff-base \
libxml2-utils chromium"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

BUILD=${BUILD:-build}
cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} ${CMAKE_ARGS:-} >/dev/null
ninja -C "$BUILD"
