"""layoutc from Python, as installed: types, a view, a pass, and a NumPy
array repacked into oneDNN's nChw16c and back."""
import numpy as np

import layoutc

ctx = layoutc.Context()
t = ctx.parse('tensor<2x20x3x3xf32, "nChw16c">')
print("layoutc", layoutc.version(), "type", t, "bytes", t.size_bytes)
print("view", t.reshape([2, 20, 9]))
m = ctx.parse_module('''func.func @f(%a: tensor<2x32x4x5xf32, "nChw16c">) -> tensor<2x2x16x4x5xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<2x32x4x5xf32, "nChw16c">) -> tensor<2x2x16x4x5xf32, any>
  "func.return"(%0) : (tensor<2x2x16x4x5xf32, any>) -> ()
}''')
m.run_pipeline("legalize-reshapes")
op = m.functions[0].ops[0]
print("pass:", op.kind, op.results[0].type)
a = np.random.default_rng(0).standard_normal((2, 20, 3, 3)).astype(np.float32)
rp = layoutc.Repacker(ctx)
packed = rp.pack(a, t)
assert np.array_equal(rp.unpack(packed, t), a) and op.kind == "layout.view"
print("embed_demo.py: ok")
