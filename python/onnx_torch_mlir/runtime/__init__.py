"""The reference CPU runner: compile Linalg, TOSA or StableHLO to native code and run it.

Pipeline (see `lowering.py` for the exact pass lists):

1. The program (an `ir.Module` or MLIR text) is parsed afresh into a runner-owned
   context, so the caller's module is never mutated.
2. The entry function is rewritten so that, instead of returning its results,
   it casts each to an unranked tensor and hands it to a private external
   function `@otm_consume_result_<k>` (see `calling_convention.py`). Those
   consumers are Python ctypes callbacks that copy the memref into a fresh numpy
   array, so dynamic result shapes, results aliasing inputs or each other, and
   constant results all come back correctly.
3. TOSA is lowered to Linalg with the upstream tosa-to-{linalg-named,linalg,
   arith,tensor,scf} passes; StableHLO with chlo-legalize-to-stablehlo and
   stablehlo-legalize-to-linalg (plus shape lowering). The entry function's
   signed/unsigned integer tensors are then made signless (the casts those
   lowerings leave at the boundary would defeat bufferization), and every
   `cf.assert` becomes a call to a Python callback on failure
   (`assertions.py`): a failed runtime check raises RunnerError after the call
   instead of aborting the process.
4. One-shot bufferization across function boundaries (identity layouts; loops
   may yield new buffers; torch-mlir's TMTensor ops are left to
   tm-tensor-bufferize), then the ownership-based buffer deallocation
   pipeline, so repeated calls do not leak.
5. Linalg and TMTensor to loops (named ops generalized, and a reduction's loops
   moved outside a contiguous parallel loop: loop_order.py), memref metadata (subviews, reshapes) to
   arithmetic, affine to arith, then arith/math/complex/memref/func/cf to the
   LLVM dialect; memref copies become loops so no runtime library is needed.
   An op left outside the LLVM dialect is reported by name.
6. MLIR's ExecutionEngine JIT-compiles the LLVM dialect module (opt level 2; 0 for a
   program of small static tensors only, `runner.small_program_opt_level`).
   Compiler-runtime functions LLVM calls (`__truncdfhf2` for f64 -> f16) are
   bound to libgcc_s or an exact numpy fallback (`compiler_runtime.py`); a JIT
   failure's RunnerError carries LLVM's stderr message. On several cores a
   program with many loop nests (BERT-base) has each moved into a function of
   its own and is compiled in parts at once, in worker processes, whose object
   files the C compiler links into a shared library (`loop_outlining.py`,
   `split_compilation.py`; `ONNX_TORCH_MLIR_JIT_PARTS=1` turns it off).
7. Compiled programs are kept on disk (`program_cache.py`, keyed on the LLVM
   dialect module, torch-mlir's version and the host CPU): compiling the same
   program again loads a shared library linked from the first compilation's
   object file instead of running LLVM (`compile_for_cpu(cache=False)` or
   `ONNX_TORCH_MLIR_PROGRAM_CACHE=off` turns it off).

Element types: f16, bf16 (ml_dtypes), f32, f64, i1 (bool), i8..i64 (passed as
signed or unsigned numpy integers of the same width; results come back signed
unless `run(result_dtypes=...)` reinterprets them), i4 and i2 (ml_dtypes
int4/uint4/int2/uint2, one byte an element as LLVM stores them; results come
back as int4/int2), complex<f32>/<f64>, index. Float8 and other types raise
UnsupportedTypeError.

Not supported: ml_program globals (stateful programs), and StableHLO dynamic
broadcasts of a dimension that may or may not be 1 (stablehlo-legalize-to-linalg
rejects them; the RunnerError carries its diagnostic). After a failed runtime
assertion the compiled code runs on to its end before the error is raised, so
code that relies on the checked property may still misbehave first.

IREE, the second consumer (`iree.py`): `compile_with_iree(module, input_dialect)`
compiles any backend's output in-process with IREE's compiler for the host CPU
(llvm-cpu) and returns an `IreeProgram` that runs on IREE's local-sync driver,
independently of everything above; failures are `IreeError`s naming the stage.
Results come back as this runner's do (signless integers signed), so
`reinterpret_results` applies to them alike. IREE is an extra
(`pip install 'onnx-torch-mlir[iree]'`); the command line's `run` and `verify`
use it with `--consumer iree`.
"""

from onnx_torch_mlir.runtime.iree import IreeError, IreeProgram, compile_with_iree
from onnx_torch_mlir.runtime.runner import CompiledProgram, compile_for_cpu, reinterpret_results, run

__all__ = [
    "CompiledProgram",
    "IreeError",
    "IreeProgram",
    "compile_for_cpu",
    "compile_with_iree",
    "reinterpret_results",
    "run",
]
