"""The runner's compiled-program cache (runtime/program_cache.py): a program compiled again is
loaded instead of JIT-compiled, gives the same results, and a bad entry is compiled again."""

import os

import numpy as np
import pytest

from onnx_torch_mlir.errors import RunnerError
from onnx_torch_mlir.runtime import compile_for_cpu, program_cache
from onnx_torch_mlir.runtime.program_cache import ProgramCache

pytestmark = pytest.mark.skipif(program_cache._c_compiler() is None, reason="no C compiler to link cached programs")

# Two results (two consumers), a runtime assertion, a constant compiled in and a dynamic size.
PROGRAM = """
func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %m = tensor.dim %b, %c0 : tensor<?xf32>
  %same = arith.cmpi eq, %n, %m : index
  cf.assert %same, "operands must have the same size"
  %init = tensor.empty(%n) : tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %r = arith.mulf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %k = arith.constant dense<[1.0, 2.0, 3.0, 4.5]> : tensor<4xf32>
  return %sum, %k : tensor<?xf32>, tensor<4xf32>
}
"""


@pytest.fixture
def cache(tmp_path):
    return ProgramCache(tmp_path / "programs", min_compile_seconds=0)


def _counts():
    return dict(vars(program_cache.statistics))


def _delta(before):
    return {name: value - before[name] for name, value in _counts().items() if value != before[name]}


def _check_results(program):
    a, b = np.arange(5, dtype=np.float32), np.full(5, 3, np.float32)
    product, constant = program(a, b)
    np.testing.assert_array_equal(product, a * b)
    np.testing.assert_array_equal(constant, np.array([1, 2, 3, 4.5], np.float32))
    return product, constant


def test_the_second_compilation_is_loaded_from_the_cache(cache):
    before = _counts()
    cold = compile_for_cpu(PROGRAM, cache=cache)
    assert not cold.from_program_cache
    assert _delta(before) == {"misses": 1, "stores": 1}
    assert len(list(cache.directory.glob("*.program"))) == 1
    before = _counts()
    cached = compile_for_cpu(PROGRAM, cache=cache)
    assert cached.from_program_cache
    assert _delta(before) == {"hits": 1}
    for first, second in zip(_check_results(cold), _check_results(cached)):
        np.testing.assert_array_equal(first, second)
    # The Python callbacks work from the library too: a failed assertion is reported, not fatal.
    with pytest.raises(RunnerError, match="runtime assertion failed: 'operands must have the same size'"):
        cached(np.ones(2, np.float32), np.ones(4, np.float32))
    _check_results(cached)


def test_two_loaded_copies_of_one_program_keep_their_own_results(cache):
    compile_for_cpu(PROGRAM, cache=cache)
    first, second = compile_for_cpu(PROGRAM, cache=cache), compile_for_cpu(PROGRAM, cache=cache)
    assert first.from_program_cache and second.from_program_cache
    (one, _), (two, _) = first(np.ones(2, np.float32), np.ones(2, np.float32)), second(np.ones(3, np.float32), np.full(3, 2, np.float32))
    np.testing.assert_array_equal(one, np.ones(2, np.float32))
    np.testing.assert_array_equal(two, np.full(3, 2, np.float32))
    del first
    _check_results(second)  # unloading one copy leaves the other


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped byte", "empty"])
def test_a_damaged_entry_is_compiled_again(cache, damage):
    compile_for_cpu(PROGRAM, cache=cache)
    (entry,) = cache.directory.glob("*.program")
    data = entry.read_bytes()
    damaged = {"garbage": b"\x7fELF not a program", "truncated": data[: len(data) // 2],
               "flipped byte": data[:-100] + bytes([data[-100] ^ 1]) + data[-99:], "empty": b""}[damage]
    entry.write_bytes(damaged)
    before = _counts()
    program = compile_for_cpu(PROGRAM, cache=cache)
    assert not program.from_program_cache
    assert _delta(before) == {"corrupt": 1, "stores": 1}
    _check_results(program)
    assert compile_for_cpu(PROGRAM, cache=cache).from_program_cache  # stored again, whole


def test_without_a_c_compiler_nothing_is_stored(cache, monkeypatch):
    monkeypatch.setattr(program_cache, "_c_compiler", lambda: None)
    before = _counts()
    _check_results(compile_for_cpu(PROGRAM, cache=cache))
    assert _delta(before) == {"misses": 1}
    assert not cache.directory.exists() or not list(cache.directory.glob("*.program"))


def test_quick_compilations_are_not_stored(tmp_path):
    cache = ProgramCache(tmp_path, min_compile_seconds=3600)
    _check_results(compile_for_cpu(PROGRAM, cache=cache))
    assert not list(tmp_path.glob("*.program"))


def test_the_least_recently_used_entries_go_when_the_cache_is_full(cache):
    compile_for_cpu(PROGRAM, cache=cache)
    (old,) = cache.directory.glob("*.program")
    os.utime(old, (1, 1))
    bounded = ProgramCache(cache.directory, max_bytes=old.stat().st_size + 100, min_compile_seconds=0)
    other = PROGRAM.replace("arith.mulf", "arith.addf")
    (total, _) = compile_for_cpu(other, cache=bounded)(np.ones(2, np.float32), np.ones(2, np.float32))
    np.testing.assert_array_equal(total, np.full(2, 2, np.float32))
    (kept,) = cache.directory.glob("*.program")
    assert kept != old


def test_a_program_loaded_from_the_cache_is_keyed_on_its_content(cache):
    compile_for_cpu(PROGRAM, cache=cache)
    other = compile_for_cpu(PROGRAM.replace("4.5", "5.5"), cache=cache)
    assert not other.from_program_cache
    np.testing.assert_array_equal(other(np.ones(1, np.float32), np.ones(1, np.float32))[1], [1, 2, 3, 5.5])


def test_the_environment_chooses_the_directory_or_turns_the_cache_off(monkeypatch, tmp_path):
    monkeypatch.delenv("ONNX_TORCH_MLIR_PROGRAM_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert program_cache.default_cache().directory == tmp_path / "xdg" / "onnx-torch-mlir" / "programs"
    monkeypatch.setenv("ONNX_TORCH_MLIR_PROGRAM_CACHE", str(tmp_path / "mine"))
    monkeypatch.setenv("ONNX_TORCH_MLIR_PROGRAM_CACHE_MAX_MB", "2")
    assert program_cache.default_cache() == ProgramCache(tmp_path / "mine", max_bytes=2 * 2**20)
    for off in ("off", "0"):
        monkeypatch.setenv("ONNX_TORCH_MLIR_PROGRAM_CACHE", off)
        assert program_cache.default_cache() is None
        before = _counts()
        _check_results(compile_for_cpu(PROGRAM))
        assert _delta(before) == {}


def test_a_resource_renamed_by_a_shared_context_gives_the_same_key(cache):
    # The runner's shared context renames a resource it already holds when the same text is parsed
    # again (`weights` becomes `weights_1`); the machine code, and so the key, is the same.
    resource_program = (
        "func.func @f() -> tensor<4xf32> {\n"
        "  %k = arith.constant dense_resource<weights> : tensor<4xf32>\n"
        "  return %k : tensor<4xf32>\n}\n"
        "{-#\n  dialect_resources: {\n    builtin: {\n"
        '      weights: "0x040000000000803F00000040000040400000A040"\n'
        "    }\n  }\n#-}\n"
    )
    (first,) = compile_for_cpu(resource_program, cache=cache)()
    before = _counts()
    (second,) = compile_for_cpu(resource_program, cache=cache)()
    assert _delta(before) == {"hits": 1}
    np.testing.assert_array_equal(first, [1, 2, 3, 5])
    np.testing.assert_array_equal(second, first)


# Loop nests in a row (fills, copies, two matmuls): runtime/loop_barriers.py puts a barrier before
# each but the first.
LOOP_NESTS = """
func.func @f(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x8xf32>) -> tensor<8x8xf32>
  %product = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  %again = linalg.matmul ins(%product, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %again : tensor<8x8xf32>
}
"""


def test_loop_barriers_change_no_result(monkeypatch):
    from onnx_torch_mlir.runtime import loop_barriers, lowering

    counted = []
    original = loop_barriers.insert_loop_barriers
    monkeypatch.setattr(loop_barriers, "insert_loop_barriers", lambda module: counted.append(original(module)))
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((8, 8)).astype(np.float32), rng.standard_normal((8, 8)).astype(np.float32)
    (with_barriers,) = compile_for_cpu(LOOP_NESTS, cache=False)(a, b)
    assert len(counted) == 1 and counted[0] >= 2
    monkeypatch.setattr(lowering, "LOOP_BARRIERS", False)
    (without,) = compile_for_cpu(LOOP_NESTS, cache=False)(a, b)
    assert len(counted) == 1  # not called again
    np.testing.assert_array_equal(with_barriers, without)
    np.testing.assert_allclose(with_barriers, (a @ b) @ a, rtol=1e-5, atol=1e-5)
