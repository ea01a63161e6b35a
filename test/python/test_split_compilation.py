"""Compiling a program in parts on several cores (runtime/loop_outlining.py, split_compilation.py,
part_compiler.py): the loop nests become functions of their own, the parts are compiled by worker
processes and linked, and the results are bit-identical to compiling the program in one piece."""

import subprocess
import sys

import numpy as np
import pytest

from onnx_torch_mlir.errors import RunnerError
from onnx_torch_mlir.runtime import calling_convention, compile_for_cpu, lowering, loop_outlining, program_cache, split_compilation
from onnx_torch_mlir.runtime.program_cache import ProgramCache

pytestmark = pytest.mark.skipif(program_cache._c_compiler() is None or program_cache._trampolines([]) is None,
                                reason="parts are linked with the C compiler, through trampolines for x86-64/AArch64")

# Several loop nests (fill, matmul, an elementwise chain with a libm call and a constant, a
# reduction), a dynamic size passed into the nests, a runtime assertion and two results.
PROGRAM = """
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0)>
func.func @f(%a: tensor<?x8xf32>, %w: tensor<8x4xf32>, %limit: tensor<?xf32>) -> (tensor<?x4xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?x8xf32>
  %m = tensor.dim %limit, %c0 : tensor<?xf32>
  %same = arith.cmpi eq, %n, %m : index
  cf.assert %same, "rows and limits must agree"
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %mm = linalg.matmul ins(%a, %w : tensor<?x8xf32>, tensor<8x4xf32>) outs(%z : tensor<?x4xf32>) -> tensor<?x4xf32>
  %bias = arith.constant dense<[0.5, -1.0, 2.0, 0.25]> : tensor<4xf32>
  %act = linalg.generic {indexing_maps = [#map2, #row, #col, #map2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias, %limit : tensor<?x4xf32>, tensor<4xf32>, tensor<?xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%x: f32, %b: f32, %l: f32, %out: f32):
    %s = arith.addf %x, %b : f32
    %t = math.exp %s : f32
    %u = arith.minimumf %t, %l : f32
    linalg.yield %u : f32
  } -> tensor<?x4xf32>
  %s0 = tensor.empty(%n) : tensor<?xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#map2, #col], iterator_types = ["parallel", "reduction"]}
      ins(%act : tensor<?x4xf32>) outs(%sz : tensor<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %act, %sum : tensor<?x4xf32>, tensor<?xf32>
}
"""


def _inputs(rows=5):
    generator = np.random.default_rng(0)
    a = generator.standard_normal((rows, 8)).astype(np.float32)
    w = generator.standard_normal((8, 4)).astype(np.float32)
    return a, w, np.full(rows, 3.0, np.float32)


def _expected(a, w, limit):
    act = np.minimum(np.exp(a @ w + np.array([0.5, -1.0, 2.0, 0.25], np.float32)), limit[:, None])
    return act, act.sum(axis=1)


@pytest.fixture
def split(monkeypatch):
    """Every program with a loop nest is split in `parts` parts; returns the list of calls made."""
    calls = []
    original = split_compilation.compile_in_parts

    def counted(module, parts, *args, **kwargs):
        calls.append(parts)
        return original(module, parts, *args, **kwargs)

    monkeypatch.setattr(split_compilation, "MIN_LOOP_NESTS", 1)
    monkeypatch.setattr(split_compilation, "compile_in_parts", counted)

    def set_parts(parts: int):
        monkeypatch.setenv("ONNX_TORCH_MLIR_JIT_PARTS", str(parts))
        return calls

    return set_parts


def _whole(monkeypatch):
    monkeypatch.setenv("ONNX_TORCH_MLIR_JIT_PARTS", "1")
    return compile_for_cpu(PROGRAM, cache=False)


@pytest.mark.parametrize("parts", [2, 3])
def test_a_program_compiled_in_parts_gives_the_same_bits(split, monkeypatch, parts):
    calls = split(parts)
    in_parts = compile_for_cpu(PROGRAM, cache=False)
    assert calls == [parts] and not in_parts.from_program_cache
    whole = _whole(monkeypatch)
    for rows in (5, 1, 17):
        inputs = _inputs(rows)
        first, second = in_parts(*inputs), whole(*inputs)
        for got, same, expected in zip(first, second, _expected(*inputs)):
            np.testing.assert_array_equal(got, same)
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    # The assertion recorder is reached from the linked library as from the JIT.
    with pytest.raises(RunnerError, match="rows and limits must agree"):
        in_parts(*_inputs(3)[:2], np.ones(2, np.float32))


def _lowered(runner, outline_min_loop_nests):
    module = lowering.parse_module(PROGRAM)
    calling_convention.make_callable_from_python(module, calling_convention.find_entry(module, "f"))
    lowering.lower_to_llvm(runner, module, "linalg-on-tensors", calling_convention.ENTRY_SYMBOL,
                           outline_min_loop_nests=outline_min_loop_nests)
    return module


def test_the_loop_nests_become_functions_and_the_entry_calls_them():
    with lowering.runner_context() as runner:
        module = _lowered(runner, 1)
        text = str(module)
        assert split_compilation.splittable(module)
    nests = [line for line in text.splitlines() if line.lstrip().startswith("llvm.func @" + loop_outlining.OUTLINED_PREFIX)]
    assert len(nests) >= 4  # two fills, the matmul, the elementwise chain, the reduction
    assert text.count("attributes {no_inline}") == len(nests)
    assert text.count("llvm.call @" + loop_outlining.OUTLINED_PREFIX) == len(nests)


def test_a_program_under_the_threshold_is_not_outlined():
    with lowering.runner_context() as runner:
        module = _lowered(runner, 100)
        assert not split_compilation.splittable(module)
        assert loop_outlining.OUTLINED_PREFIX not in str(module)


def test_a_program_compiled_in_parts_is_cached_and_loaded(split, monkeypatch, tmp_path):
    cache = ProgramCache(tmp_path / "programs", min_compile_seconds=0)
    calls = split(2)
    cold = compile_for_cpu(PROGRAM, cache=cache)
    assert calls == [2] and not cold.from_program_cache
    assert len(list(cache.directory.glob("*.program"))) == 1
    cached = compile_for_cpu(PROGRAM, cache=cache)
    assert cached.from_program_cache and calls == [2]
    inputs = _inputs(6)
    for got, same in zip(cold(*inputs), cached(*inputs)):
        np.testing.assert_array_equal(got, same)
    # Not split: another lowered module, so another key (the library is not taken for it).
    monkeypatch.setenv("ONNX_TORCH_MLIR_JIT_PARTS", "1")
    assert not compile_for_cpu(PROGRAM, cache=cache).from_program_cache
    assert len(list(cache.directory.glob("*.program"))) == 2


def test_a_failing_worker_is_reported():
    worker = subprocess.Popen([sys.executable, "-c", "import sys; sys.exit('the part did not compile')"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert split_compilation._finish(worker) == "the part did not compile"


def test_the_number_of_parts_follows_the_environment(monkeypatch):
    monkeypatch.setenv("ONNX_TORCH_MLIR_JIT_PARTS", "3")
    assert split_compilation.parts_wanted() == 3
    monkeypatch.setenv("ONNX_TORCH_MLIR_JIT_PARTS", "off")
    assert split_compilation.parts_wanted() == 1


# Two loop nests raising to integer powers: math.fpowi becomes a local helper function
# (__mlir_math_fpowi_f32_i64) that each part defines, and the ExecutionEngine wraps every defined
# function in an external _mlir_<name> (T5's Pow: "multiple definition" when the parts were linked).
POWER_PROGRAM = """
#id = affine_map<(d0) -> (d0)>
func.func @g(%a: tensor<?xf32>, %k: tensor<?xi64>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %k : tensor<?xf32>, tensor<?xi64>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: i64, %out: f32):
    %r = math.fpowi %x, %y : f32, i64
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %q = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%p, %k : tensor<?xf32>, tensor<?xi64>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: i64, %out: f32):
    %r = math.fpowi %x, %y : f32, i64
    %s = arith.addf %r, %x : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %p, %q : tensor<?xf32>, tensor<?xf32>
}
"""


def test_parts_that_each_define_a_local_helper_link(split):
    calls = split(3)
    program = compile_for_cpu(POWER_PROGRAM, cache=False)
    assert calls == [3]
    a = np.array([1.5, -2.0, 0.5, 3.0], np.float32)
    k = np.array([2, 3, -1, 0], np.int64)
    p, q = program(a, k)
    np.testing.assert_allclose(p, a ** k.astype(np.float32), rtol=1e-6)
    np.testing.assert_allclose(q, p ** k.astype(np.float32) + p, rtol=1e-6)
