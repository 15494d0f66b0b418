"""The Python package against the shared library: types, views, the IR and
passes, and repacking NumPy arrays (checked against NumPy's own transposes)."""
import numpy as np
import pytest

import layoutc


@pytest.fixture
def ctx():
    return layoutc.Context()


def test_version_and_passes():
    assert layoutc.version().count(".") == 2
    assert "legalize-reshapes" in layoutc.passes()


def test_spellings_intern_to_one_type(ctx):
    a = ctx.parse('tensor<2x20x3x3xf32, "nChw16c">')
    b = ctx.parse('tensor<2x20x3x3xf32, "aBcd16b">')
    c = ctx.parse("tensor<2x20x3x3xf32, tiled_layout<<0,1,2,3>,(16,1,1)>>")
    assert a == b == c and a.hash == c.hash
    assert str(a) == 'tensor<2x20x3x3xf32, "aBcd16b">'
    assert (a.rank, a.dims, a.element) == (4, [2, 20, 3, 3], "f32")
    assert (a.numel, a.alloc_elements, a.size_bytes) == (360, 576, 2304)
    assert a.offset([1, 17, 2, 1]) == 545
    # The hash is stable across contexts.
    assert layoutc.Context().parse(str(a)).hash == a.hash


def test_errors_carry_diagnostics(ctx):
    with pytest.raises(layoutc.LayoutcError) as e:
        ctx.parse("tensor<4x6xf32, strided<[1]>>")
    assert "strided layout has 1 stride but the type has rank 2" in str(e.value)
    t = ctx.parse('tensor<2x20x3x3xf32, "nChw16c">')
    with pytest.raises(layoutc.LayoutcError) as e:
        t.offset([1, 20, 2, 1])
    assert e.value.status == "LY_ERROR_RANGE"


def test_strides_match_numpy(ctx):
    a = np.zeros((4, 6, 5), dtype=np.float32)
    t = ctx.parse("tensor<4x6x5xf32>")
    assert t.strides() == (list(a.strides), 0)
    perm = [2, 0, 1]  # source dim i becomes dim perm[i]
    want = [0] * 3
    for i, p in enumerate(perm):
        want[p] = a.strides[i]
    assert t.permute(perm).strides()[0] == want


def test_views(ctx):
    t = ctx.parse('tensor<2x32x4x5xf32, "nChw16c">')
    v = t.try_reshape([2, 2, 16, 4, 5])
    assert str(v) == 'tensor<2x2x16x4x5xf32, "abdec">'
    assert v == t.reshape([2, 2, 16, 4, 5])
    t48 = ctx.parse('tensor<2x48x4x5xf32, "nChw16c">')
    with pytest.raises(layoutc.NotAView) as e:
        t48.try_reshape([2, 4, 12, 4, 5])
    assert e.value.status == "LY_ERROR_NOT_A_VIEW" and e.value.diagnostics == []
    relayout = t48.reshape_relayout([2, 4, 12, 4, 5])
    assert relayout.try_reshape([2, 4, 12, 4, 5]).dims == [2, 4, 12, 4, 5]
    b = ctx.parse("tensor<1x6xf32>").broadcast([4, 6])
    assert b.strides()[0] == [0, 4]


MODULE = """func.func @f(%a: tensor<2x32x4x5xf32, "nChw16c">) -> tensor<2x2x16x5x4xf32, any> {
  %0 = "layout.reshape"(%a) : (tensor<2x32x4x5xf32, "nChw16c">) -> tensor<2x2x16x4x5xf32, any>
  %1 = "layout.transpose"(%0) {permutation = [0, 1, 2, 4, 3]} : (tensor<2x2x16x4x5xf32, any>) -> tensor<2x2x16x5x4xf32, any>
  "func.return"(%1) : (tensor<2x2x16x5x4xf32, any>) -> ()
}
"""


def test_parse_pipeline_and_walk(ctx):
    m = ctx.parse_module(MODULE)
    m.verify()
    transpose = next(op for op in m.functions[0].ops if op.kind == "layout.transpose")
    assert transpose.attrs == {"permutation": [0, 1, 2, 4, 3]}
    m.run_pipeline("legalize-reshapes")
    (f,) = m.functions
    kinds = [op.kind for op in f.ops]
    assert "layout.reshape" not in kinds and "layout.view" in kinds
    view = next(op for op in f.ops if op.kind == "layout.view")
    src = ctx.parse('tensor<2x32x4x5xf32, "nChw16c">')
    assert view.results[0].type == src.reshape([2, 2, 16, 4, 5])
    assert view.operands[0] == f.args[0] and f.args[0].defining_op is None
    assert kinds == ["layout.view", "layout.view", "func.return"]
    assert str(f.ops[1].results[0].type) == 'tensor<2x2x16x5x4xf32, "abedc">'
    with pytest.raises(layoutc.LayoutcError) as e:
        m.run_pipeline("legalize-reshapes,nope")
    assert "unknown pass 'nope'" in str(e.value)


def test_build_module_matches_parsed(ctx):
    src = ctx.parse('tensor<2x32x4x5xf32, "nChw16c">')
    r_any = ctx.parse("tensor<2x2x16x4x5xf32, any>")
    t_any = ctx.parse("tensor<2x2x16x5x4xf32, any>")
    m = ctx.module()
    f = m.add_function("f", [src], [t_any])
    r = f.add_op("layout.reshape", f.args, [r_any])
    t = f.add_op("layout.transpose", r.results, [t_any], permutation=[0, 1, 2, 4, 3])
    f.add_op("func.return", t.results, [])
    m.verify()
    assert r.attrs == {} and t.attrs == {"permutation": [0, 1, 2, 4, 3]}
    m.run_pipeline("legalize-reshapes")
    (g,) = m.functions
    assert [op.kind for op in g.ops][-1] == "func.return"
    assert g.ops[0].results[0].type == src.reshape([2, 2, 16, 4, 5])


def test_build_function_with_index_argument(ctx):
    n = ctx.parse_value("index")
    x = ctx.parse_value("tensor<4x6xf32>")
    assert not n.is_tensor and x.is_tensor and x == ctx.parse("tensor<4x6xf32>") and str(n) == "index"
    m = ctx.module()
    f = m.add_function("g", [n, x], [x])
    f.add_op("func.return", [f.args[1]], [])
    m.verify()
    assert "@g(%0: index, %1: tensor<4x6xf32>) -> tensor<4x6xf32>" in str(m)
    with pytest.raises(layoutc.LayoutcError) as e:
        ctx.parse_value("memref<4xf32")
    assert "'<' opened here is never closed" in str(e.value.diagnostics[0])


@pytest.mark.parametrize("tag,perm", [('"nhwc"', (0, 2, 3, 1)), ('"chwn"', (1, 2, 3, 0))])
def test_repack_matches_numpy_transpose(ctx, tag, perm):
    a = np.arange(2 * 16 * 5 * 7, dtype=np.float32).reshape(2, 16, 5, 7) * 0.5
    dst = ctx.row_major("f32", list(a.shape)).with_layout(tag)
    rp = layoutc.Repacker(ctx)
    packed = rp.pack(a, dst, threads=2)
    np.testing.assert_array_equal(packed, np.transpose(a, perm).ravel())
    np.testing.assert_array_equal(rp.unpack(packed, dst), a)


def test_repack_blocked_with_padding(ctx):
    a = np.random.default_rng(1).standard_normal((2, 20, 3, 3)).astype(np.float32)
    dst = ctx.parse('tensor<2x20x3x3xf32, "nChw16c">')
    rp = layoutc.Repacker(ctx)
    packed = rp.pack(a, dst)
    assert packed.size == dst.alloc_elements == 576
    # NumPy's spelling of nChw16c: pad C to 32, split into blocks of 16.
    padded = np.zeros((2, 32, 3, 3), np.float32)
    padded[:, :20] = a
    want = padded.reshape(2, 2, 16, 3, 3).transpose(0, 1, 3, 4, 2).ravel()
    np.testing.assert_array_equal(packed, want)
    np.testing.assert_array_equal(rp.unpack(packed, dst), a)
    assert rp.kernel(ctx.row_major("f32", [2, 20, 3, 3]), dst).compiled


def test_repack_refuses_wrong_size(ctx):
    dst = ctx.parse('tensor<2x20x3x3xf32, "nChw16c">')
    k = layoutc.Repacker(ctx).kernel(ctx.row_major("f32", [2, 20, 3, 3]), dst)
    with pytest.raises(ValueError):
        k.run(np.zeros(10, np.float32))
