#!/usr/bin/env python3
"""Writes the byte pattern that `layoutc emit-llvm --repack --with-main` puts in its source
buffer: byte k is (k*131 + 7) mod 256. Usage: pattern.py NBYTES OUT"""
import sys

n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "wb") as f:
    f.write(bytes((k * 131 + 7) & 255 for k in range(n)))
