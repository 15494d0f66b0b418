#!/usr/bin/env python3
"""Starts N `layoutc repack` processes at once on one (empty) kernel cache and checks that each
writes the reference output. Usage: cache_race.py CACHE_DIR N INPUT REFERENCE"""
import os
import subprocess
import sys

cache, n, inp, ref = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
env = dict(os.environ, LAYOUTC_CACHE_DIR=cache)
procs = []
for i in range(n):
    out = "%s.out%d" % (ref, i)
    cmd = ["layoutc", "repack", "tensor<2x20x3x3xf32>", 'tensor<2x20x3x3xf32, "nChw16c">', "-i", inp, "-o", out]
    procs.append((subprocess.Popen(cmd, env=env), out))
want = open(ref, "rb").read()
bad = 0
for p, out in procs:
    if p.wait() != 0 or open(out, "rb").read() != want:
        print("process writing %s failed or differs" % out)
        bad += 1
sys.exit(1 if bad else 0)
