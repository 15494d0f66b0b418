#!/usr/bin/env python3
"""Writes the byte pattern that `layoutc emit-llvm --repack --with-main` puts in its source
buffer: byte k is the top byte of x = k * 0x9E3779B97F4A7C15, x ^= x >> 29, x *= 0xBF58476D1CE4E5B9
(mod 2^64), a mix of the index, so no row of a tensor repeats another (the unit tests'
test_source_byte). Usage: pattern.py NBYTES OUT"""
import sys

M = (1 << 64) - 1


def byte(k):
    x = (k * 0x9E3779B97F4A7C15) & M
    x ^= x >> 29
    x = (x * 0xBF58476D1CE4E5B9) & M
    return x >> 56


n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "wb") as f:
    f.write(bytes(byte(k) for k in range(n)))
