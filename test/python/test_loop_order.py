"""The runner's loop order (runtime/loop_order.py): a reduction's loops go outside a contiguous parallel
loop, only where no float operation is reordered, and the results keep their bits."""

import numpy as np
import pytest
from onnx_torch_mlir.ir_walk import ops_named
from onnx_torch_mlir.runtime import compile_for_cpu, lowering, loop_order


def generic(maps: str, iterators: str, shapes: tuple[str, str, str], body: str) -> str:
    """`(a, b) -> c` by one linalg.generic; `body` computes `%r` from `%x`, `%y` and the output `%o`."""
    a, b, c = (f"tensor<{shape}xf32>" for shape in shapes)
    return f"""
func.func @main(%a: {a}, %b: {b}) -> {c} {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : {c}
  %i = linalg.fill ins(%z : f32) outs(%e : {c}) -> {c}
  %r = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{iterators}]}}
      ins(%a, %b : {a}, {b}) outs(%i : {c}) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    {body}
    linalg.yield %r : f32
  }} -> {c}
  return %r : {c}
}}"""


MATMUL = generic("affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>",
                 '"parallel", "parallel", "reduction"', ("6x40", "40x24", "6x24"),
                 "%m = arith.mulf %x, %y : f32\n    %r = arith.addf %o, %m : f32")
# The column index j (linalg.index 1) enters the product: its dim moves, so the index must follow.
INDEXED = generic("affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>",
                  '"parallel", "parallel", "reduction"', ("6x40", "40x24", "6x24"),
                  "%j = linalg.index 1 : index\n    %ji = arith.index_cast %j : index to i32\n"
                  "    %jf = arith.sitofp %ji : i32 to f32\n    %m = arith.mulf %x, %y : f32\n"
                  "    %mj = arith.mulf %m, %jf : f32\n    %r = arith.addf %o, %mj : f32")
# A sum over rows of a matrix read by columns: moving i inside would make the reads of %a strided.
ROW_SUMS = generic("affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>",
                   '"parallel", "reduction"', ("6x40", "6x40", "6"),
                   "%m = arith.mulf %x, %y : f32\n    %r = arith.addf %o, %m : f32")


def reordered_iterators(source: str) -> list[list[str]]:
    with lowering.runner_context() as runner:
        module = lowering.parse_module(source)
        runner.pass_manager(lowering._BUFFERIZE).run(module.operation)
        loop_order.move_reductions_outside(module)
        kinds = [loop_order._iterator_kinds(operation) for operation in ops_named(module, ("linalg.generic",))]
        return [kind for kind in kinds if "reduction" in kind]  # not the fill


def test_a_matrix_products_column_loop_goes_innermost():
    assert reordered_iterators(MATMUL) == [["parallel", "reduction", "parallel"]]


def test_a_sum_over_rows_keeps_its_order():
    assert reordered_iterators(ROW_SUMS) == [["parallel", "reduction"]]


@pytest.mark.parametrize("source, shapes", [(MATMUL, ((6, 40), (40, 24))), (INDEXED, ((6, 40), (40, 24))),
                                            (ROW_SUMS, ((6, 40), (6, 40)))], ids=["matmul", "indexed", "row-sums"])
def test_the_bits_are_numpys_sequential_sums(source, shapes):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(shape).astype(np.float32) * 3 for shape in shapes)
    got = compile_for_cpu(source, cache=False)(a, b)[0]
    if source is ROW_SUMS:
        terms = [a[:, k] * b[:, k] for k in range(a.shape[1])]
        column = np.ones(1, np.float32)
    else:
        terms = [np.outer(a[:, k], b[k]) for k in range(a.shape[1])]
        column = np.arange(b.shape[1], dtype=np.float32) if source is INDEXED else np.ones(1, np.float32)
    want = np.zeros(got.shape, np.float32)
    for term in terms:  # float32 additions in the reduction's order, one by one
        want = want + (term * column).astype(np.float32)
    assert got.tobytes() == want.tobytes()
