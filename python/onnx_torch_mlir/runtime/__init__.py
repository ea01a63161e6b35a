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
   stablehlo-legalize-to-linalg (plus shape lowering).
4. One-shot bufferization across function boundaries (identity layouts;
   torch-mlir's TMTensor ops are left to tm-tensor-bufferize), then the
   ownership-based buffer deallocation pipeline, so repeated calls do not leak.
5. Linalg and TMTensor to loops, then arith/math/complex/memref/func/cf to the
   LLVM dialect; memref copies become loops so no runtime library is needed.
6. MLIR's ExecutionEngine JIT-compiles the LLVM dialect module (opt level 2).

Element types: f16, bf16 (ml_dtypes), f32, f64, i1 (bool), i8..i64 (passed as
signed or unsigned numpy integers of the same width; results come back signed
unless `run(result_dtypes=...)` reinterprets them), complex<f32>/<f64>, index.
Float8 and other types raise UnsupportedTypeError.

Not supported: ml_program globals (stateful programs), and StableHLO dynamic
broadcasts of a dimension that may or may not be 1 (stablehlo-legalize-to-linalg
rejects them; the RunnerError carries its diagnostic).
"""

from onnx_torch_mlir.runtime.runner import CompiledProgram, compile_for_cpu, reinterpret_results, run

__all__ = ["CompiledProgram", "compile_for_cpu", "reinterpret_results", "run"]
