#!/bin/sh
# Builds and runs the embedding examples against an installed layoutc, the
# way a user would: from a copy outside the source tree, with CMake's
# find_package, with pkg-config, and from Python.
#   sh examples/embed/run.sh PREFIX
set -eu
prefix=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here"/CMakeLists.txt "$here"/*.c "$here"/*.py "$work"/
cd "$work"

echo "== find_package(layoutc)"
cmake -G Ninja -S . -B build -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build build >/dev/null
./build/embed_demo
./build/core_demo
if readelf -d build/core_demo | grep -q 'libLLVM'; then
  echo "core_demo links libLLVM"; exit 1
fi

echo "== pkg-config"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# shellcheck disable=SC2046
cc core_demo.c -o core_pc $(pkg-config --cflags --libs layoutc-core) \
  -Wl,-rpath,"$(pkg-config --variable=libdir layoutc-core)"
./core_pc
# shellcheck disable=SC2046
cc embed_demo.c -o embed_pc $(pkg-config --cflags --libs layoutc) \
  -I"$(llvm-config-19 --includedir)" -L"$(llvm-config-19 --libdir)" -lLLVM \
  -Wl,-rpath,"$(pkg-config --variable=libdir layoutc)"
./embed_pc

echo "== Python"
py=python3 # Debian's, which has NumPy (python3-numpy), before any other on PATH
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
PYTHONPATH="$(find "$prefix" -type d -name layoutc -path '*packages*' -exec dirname {} \; | head -1)" \
  "$py" embed_demo.py
