"""Prints one function of N reshapes that alternately split and join the
blocked C of "nChw16c" (every one a view). usage: gen_large.py N"""
import sys

n = int(sys.argv[1])
a = 'tensor<2x32x4x5xf32, "nChw16c">'
b = "tensor<2x2x16x4x5xf32, any>"
out = ["func.func @large(%%a: %s) -> tensor<2x32x4x5xf32, any> {" % a]
prev, t = "%a", a
for i in range(n):
    r = b if i % 2 == 0 else "tensor<2x32x4x5xf32, any>"
    out.append('  %%%d = "layout.reshape"(%s) : (%s) -> %s' % (i, prev, t, r))
    prev, t = "%%%d" % i, r
out.append('  "func.return"(%s) : (%s) -> ()' % (prev, t))
out.append("}")
sys.stdout.write("\n".join(out) + "\n")
