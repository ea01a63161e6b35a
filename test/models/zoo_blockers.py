"""Why a zoo cell of ours fails: each known first-error line mapped to its exact blocker.

`docs/models.md` lists every failing cell of our path with the blocker found here, so the reader
sees, one by one, what stops a model and which issue (or upstream project) it waits on. A failing
cell that no entry explains is listed as **unexplained**: that is a bug to look at, not a known gap.

Entries are (what the cell must match, the blocker). A match is on the backend (None: any), the
consumer (None: any), the model (None: any; for a cause that only that model's numbers show) and a
substring of the first error line; the first entry that matches wins.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Blocker:
    error_contains: str
    explanation: str
    backend: str | None = None
    consumer: str | None = None
    model: str | None = None


_DYNAMIC_TOSA = (
    "dynamic dims on TOSA: torch-mlir's TOSA lowering takes only static sizes (`aten.size.int` has no TOSA "
    "form); issue 11 item 2 (keep `?` where TOSA can, else point to `--dim NAME=SIZE`)"
)
_DYNAMIC_STABLEHLO = (
    "dynamic dims on StableHLO: issue 11 item 2 (torch-mlir's StableHLO lowering emits `torch.runtime.assert`, "
    "`dynamic_broadcast_in_dim` without expansion hints, or refuses the dynamic input)"
)

_DYNAMIC_WINDOW = (
    "a convolution or pool on a dynamic image size that the rewrite into strided slices and a product "
    "(transforms/stablehlo/dynamic_convolution.py; neither StableHLO consumer lowers dynamic spatial dims) does "
    "not take, so it is refused with a pointer to `--dim`; issue 11 item 2"
)

_TOSA_NEEDS_STATIC = (
    "dynamic dims on TOSA: TOSA's shapes are compile-time constants, so a form that needs a run-time size is "
    "refused with a pointer to `--dim NAME=SIZE` (transforms/tosa/dynamic.py keeps `?` elsewhere; docs/dynamic-shapes.md "
    "lists which dims fixed make each model pass)"
)

BLOCKERS: tuple[Blocker, ...] = (
    Blocker("scan output 0 has rows", "a Loop (tf2onnx's while_loop of an LSTM) whose scan rows have a run-time dim "
            "(the batch) on StableHLO is refused: its counted `stablehlo.while` filling a [count, rows...] buffer "
            "(commit 8219240) gives IREE 3.13 wrong numbers (0.135 on this file; right on the reference runner). "
            "IREE's bug, minimal reproducer: `x = add(a, a)` [?,?,4]; `h0` a dynamic splat zero [?,4]; a counted "
            "`stablehlo.while` carrying (i, h, buf) with `h = h + x[i]` and `buf[i] = h` (scatter, or a select on "
            "the row number) returns cumsum(x) + x[0]: IREE packs x and h0 into one transient allocation and "
            "passes the loop the whole allocation without h0's offset, so the first iteration reads x's bytes as "
            "h0 (test_iree_loop_forms.py::test_counted_scan_buffer_on_iree). Reading the carried value as "
            "`select(i == 0, h0, h)` fixes that reproducer and this file's two LSTM loops, but the GRU loop then "
            "fails at IREE run time (`OUT_OF_RANGE; indirect buffer reference slot 0`, a copy_buffer from a null "
            "buffer): also IREE's, it needs the GRU loop fed by the forward LSTM loop's scan buffer (the GRU alone, "
            "or after the backward LSTM, runs right), and the two loops' initial scalars share one transient "
            "allocation (whether the first loop frees it is not confirmed); a run-time zero as the GRU's i32 initial value makes it run, "
            "the same made by the converter does not. With the dims fixed it passes on every consumer",
            backend="stablehlo", model="tf2onnx-keras-lstm-gru"),
    Blocker("unresolved target materialization from ('index') to ('!stream.resource<*>', 'index')",
            "NonMaxSuppression without a limit on a run-time number of candidates (NonZero over the anchors of a "
            "dynamic image size, padded to them at run time): its greedy loop carries the kept boxes, [1, N], "
            "whose run-time dim the body takes from a value outside the loop, which IREE 3.13's stream "
            "conversion refuses (test_iree_loop_forms.py's FLAGGED_WHILE); the dim taken from the carried value "
            "compiles but runs wrong in IREE (test_non_zero_run_time_elements.py). The reference runner passes, "
            "and IREE with the image size fixed", backend="stablehlo", consumer="iree", model="yolov8n-ultralytics-nms"),
    Blocker("XLA compiles static shapes", "XLA (jax's CPU client, `compile_and_load` of StableHLO text) compiles "
            "static shapes only, so a module with dynamic dims is refused before XLA sees it, naming `--dim`; the "
            "ours-dims row is the same model with its dims fixed", consumer="xla"),
    Blocker("values differ beyond", "a QDQ model whose one output amplifies float32 round-off: noise of rms 5e-8 on "
            "its float results moves it over 0.568 to 0.779 in onnxruntime itself (60 runs, measured), and every "
            "correct float32 evaluation lands somewhere there (ours 0.588 on Linalg, onnxruntime's exact-kernel "
            "reference 0.549); this cell is 0.002 past the 0.2 tolerance", model="pipecat-smart-turn"),
    Blocker("values differ beyond", "IREE and XLA contract a float multiply and add into one fused multiply-add on "
            "a CPU with FMA (our program keeps them apart, as onnxruntime's LSTM cell does), so the dynamically quantized "
            "LSTMs' cells differ from onnxruntime's in the last bit and a run-time quantization of the hidden state "
            "rounds one value to the other integer; the recurrence carries that step (max 0.51). The reference runner "
            "gives onnxruntime's bits (recurrent/mlas_activations.py), and so does IREE for a CPU without FMA "
            "(--iree-llvmcpu-target-cpu=x86-64-v2, measured on test_dynamic_quantize_lstm's cases). Upstream: IREE "
            "adds `contract` to every float op of its CPU code with no option against it (iree-org/iree#14551), XLA "
            "contracts likewise (openxla/xla#41579, open); reproducer test_consumer_contraction.py (a*x + b*x: 0 "
            "rounded, 5e21 contracted). Tried: `stablehlo.optimization_barrier` around a product stops IREE's "
            "contraction, not XLA's, and Linalg has no such op",
            model="tashkeel-bilstm-int8"),
    Blocker("the type of result", "the merged decoder's `If` (values from its branches are untyped): issue 10 item 1"),
    Blocker("in else_branch, and the condition is known only at run time",
            "an If whose run-time condition picks between two ranks of which only one keeps the rest of the graph "
            "valid (TorchScript's `squeeze(-1)` of a dynamic size before Silero VAD's LSTMCell): Linalg takes that "
            "branch behind a run-time check of the condition, which TOSA and StableHLO cannot express; fixing the "
            "input's shape decides it but leaves the If on `sr` with the other sample rate's network invalid for that "
            "shape (docs/control-flow.md)"),
    Blocker("needs the run-time size of dim", _TOSA_NEEDS_STATIC + " (a reshape with two run-time sizes, or an "
            "`arange` over a run-time length)", backend="tosa"),
    Blocker("on a dynamic image size", _TOSA_NEEDS_STATIC + " (a strided convolution or pool on a dynamic image "
            "size: torch-mlir's TOSA lowering sizes its result only from static input sizes)", backend="tosa"),
    Blocker("failed to legalize operation 'torch.aten.size.int'", _DYNAMIC_TOSA, backend="tosa"),
    Blocker("failed to legalize operation 'torch.aten.index_select'", _DYNAMIC_TOSA + " (a Gather from a dynamic table "
            "index)", backend="tosa"),
    Blocker("'torch.runtime.assert'", _DYNAMIC_STABLEHLO, backend="stablehlo"),
    Blocker("dynamic shaped input is not supported", _DYNAMIC_STABLEHLO, backend="stablehlo"),
    Blocker("failed to legalize operation 'torch.constant.int'", _DYNAMIC_STABLEHLO, backend="stablehlo"),
    Blocker("stablehlo.dynamic_broadcast_in_dim", _DYNAMIC_STABLEHLO, backend="stablehlo"),
    Blocker("'bufferization.to_tensor'",
            "the reference runner's StableHLO path cannot lower dynamically shaped StableHLO (left-over "
            "`bufferization.to_tensor`): issue 11 item 5", backend="stablehlo", consumer="reference"),
    Blocker("failed to legalize operation 'stablehlo.convolution'",
            "IREE's StableHLO input refuses a convolution with a dynamic batch: issue 11 item 2",
            backend="stablehlo", consumer="iree"),
    Blocker("failed to legalize operation 'torch.aten.to.dtype'", _DYNAMIC_TOSA + " (a cast of a dynamic input)",
            backend="tosa"),
    Blocker("stablehlo.dynamic_reshape", _DYNAMIC_STABLEHLO, backend="stablehlo"),
    Blocker("failed to legalize operation 'torch.aten.convolution'", _DYNAMIC_TOSA + " (a 1-D convolution of a "
            "dynamic batch)", backend="tosa"),
    Blocker("must be static on tosa", _TOSA_NEEDS_STATIC + " (GroupQueryAttention's present length, the larger of "
            "two run-time sizes, sizes the KV cache)", backend="tosa"),
    Blocker("must be static on stablehlo", _DYNAMIC_STABLEHLO + " (GroupQueryAttention's present length)",
            backend="stablehlo"),
    Blocker("'tosa.cast' op is not profile-aligned: element type 'f64'",
            "quantization on TOSA divides and requantizes in f64 for ONNX's exact rounding (f32's reciprocal was "
            "one ulp off in 26% of trials); IREE's TOSA has no f64: issue 9 (an exact f32/integer form)",
            backend="tosa", consumer="iree"),
    Blocker("stablehlo.dynamic_gather",
            "a Gather with run-time indices into a dynamically shaped table becomes `stablehlo.dynamic_gather`, which "
            "IREE's StableHLO input does not lower: issue 11 item 2 (`--dim` fixes it)", backend="stablehlo",
            consumer="iree"),
    Blocker("AveragePool\"(\"model.onnx\":0:0)): stablehlo.convolution on tensor<",
            _DYNAMIC_WINDOW + " (EfficientNet's pooler: an AveragePool with a 320x320 window and stride, whose divisor "
            "torch-mlir computes as a convolution with that kernel; the rewrite takes windows of at most 64 positions, "
            "one slice each; a window as large as its stride wants a sum form)", backend="stablehlo"),
    Blocker("node_avg_pool2d\"(\"model.onnx\":0:0)): stablehlo.convolution on tensor<",
            _DYNAMIC_WINDOW + " (EfficientNet's pooler: an AveragePool with a 320x320 window and stride, whose divisor "
            "torch-mlir computes as a convolution with that kernel; the rewrite takes windows of at most 64 positions, "
            "one slice each; a window as large as its stride wants a sum form)", backend="stablehlo"),
    Blocker("stablehlo.convolution on tensor<?x64x?x?xf32>",
            _DYNAMIC_WINDOW + " (UNet's ConvTranspose: a transposed convolution is one with input dilation, which the "
            "rewrite does not take)", backend="stablehlo"),
    Blocker("stablehlo.convolution on tensor<",
            _DYNAMIC_WINDOW, backend="stablehlo"),
    Blocker("failed to legalize operation 'torch.constant.float'",
            _DYNAMIC_STABLEHLO + " (Resize by scales of a dynamic image size)", backend="stablehlo"),
    Blocker("failed to legalize operation 'torch.aten.matmul'", _DYNAMIC_TOSA + " (a MatMul of a dynamic image "
            "size)", backend="tosa"),
    Blocker("attempted to access an address outside of the valid buffer range",
            "IREE bug (not ours): its program for the merged LLaMA binds 15360 bytes of a 3840-byte transient "
            "(OUT_OF_RANGE in `hal.device.queue.dealloca` on local-task, in `hal.device.queue.execute` on local-sync). "
            "Our Linalg is right: the reference runner matches onnxruntime; the If's then-branch (`use_cache_branch` "
            "= true) compiled alone as the function body runs on IREE and matches; with any one of the else branch's "
            "five yielded tensors replaced by a `linalg.fill` of the same shape the whole If runs too (the else "
            "branch is not executed). Reproducer: this model's Linalg (`onnx-torch-mlir compile merged/model.onnx "
            "--to linalg-on-tensors`), `iree-compile --iree-hal-target-device=local "
            "--iree-hal-local-target-device-backends=llvm-cpu`, `iree-run-module --device=local-task` with the zoo "
            "inputs; not changed by `--iree-stream-partitioning-favor=debug` or "
            "`--iree-stream-resource-memory-model=discrete` (IREE 3.13.0rc20261016)", consumer="iree"),
    Blocker("unresolved target materialization from ('i1') to ('!stream.resource",
            "IREE bug (not ours): `iree-stream-conversion` fails on an `scf.while` whose \"before\" region takes an "
            "`i1` it does not forward to the \"after\" region, which is how torch-mlir lowers every while-like "
            "`torch.prim.Loop` (`scf.while (%c = %init, %t = %x) : (i1, tensor<...>) { scf.condition(%c) %t }`): "
            "the after region's tensor argument is materialized from the i1. IREE compiles the loop only where "
            "its own loop-invariant code motion first rotates it to a do-while (the small repros did; this loop is "
            "not rotated). Minimal reproducer, `iree-opt --iree-stream-conversion` (IREE 3.13.0rc20261016): "
            "`util.func public @main(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> { %r = scf.while (%a = %c, "
            "%t = %x) : (i1, tensor<4xf32>) -> tensor<4xf32> { scf.condition(%a) %t : tensor<4xf32> } do { "
            "^bb0(%t: tensor<4xf32>): %y = flow.tensor.reshape %t : tensor<4xf32> -> tensor<2x2xf32> %z = "
            "flow.tensor.reshape %y : tensor<2x2xf32> -> tensor<4xf32> %c0 = arith.constant 0 : index %e = "
            "flow.tensor.load %t[%c0] : tensor<4xf32> %zero = arith.constant 0.0 : f32 %k = arith.cmpf ogt, %e, "
            "%zero : f32 scf.yield %k, %z : i1, tensor<4xf32> } util.return %r : tensor<4xf32> }` (with the i1 also "
            "forwarded, `scf.condition(%a) %a, %t`, it converts)", consumer="iree"),
    Blocker("the number of selected boxes depends on the data",
            "NonMaxSuppression selects a data-dependent number of boxes, and TOSA's shapes are compile-time "
            "constants (`--dim` cannot fix a size the data decides): a fixed-size result needs the model to declare "
            "the count (a [K, 3] `selected_indices`); Linalg and StableHLO take the run-time count", backend="tosa"),
    Blocker("on tosa the step outputs would grow at run time",
            "an LSTM/GRU over a run-time sequence length is a while loop whose Y grows by a step per iteration, and "
            "torch-mlir's TOSA lowering takes no size that changes at run time (StableHLO runs it as "
            "`stablehlo.while`; `--dim sequence=N` unrolls it on TOSA, where the rest of the model needs the dim "
            "fixed too); issue 11", backend="tosa"),
    Blocker("on tosa a Loop that appends to a sequence is unrolled",
            "a Loop that appends to a sequence over a run-time number of iterations: the sequence becomes a stacked "
            "tensor that grows each iteration, which torch-mlir's TOSA lowering cannot take, so on TOSA the loop is "
            "unrolled, which needs the count at compile time (`--dim`); StableHLO and Linalg run it as a while loop",
            backend="tosa"),
    Blocker("scan outputs grow by a row per iteration",
            "a Loop or Scan over a run-time number of iterations gathers its scan outputs in a tensor that grows "
            "each iteration, which torch-mlir's TOSA lowering cannot take (StableHLO runs it as `stablehlo.while`); "
            "issue 11", backend="tosa"),
    Blocker("no result within",
            "the exact float32 rounding of quantization on TOSA (TOSA has no float64 or division: about 100 "
            "elementwise ops per QuantizeLinear, 150 per requantization, 300 per scalar scale, tens of thousands in "
            "this model) takes this consumer over the zoo's time limit to compile; the other consumer runs it and "
            "matches (issue 9: a cheaper exact form, e.g. folding the scalar parts)", backend="tosa"),
    Blocker("maximum iteration count exceeded in fixed point pipeline",
            "IREE's compiler gives up in its own fixed-point pipeline on this TOSA (an IREE limitation; the "
            "reference runner runs the same TOSA correctly)", backend="tosa", consumer="iree"),
    Blocker("TOSA FB Reader error: Unknown data type",
            "Vela 5.2's TOSA reader has no int64: the model takes int64 inputs (token ids, an attention mask), which "
            "the TOSA route keeps int64, so Vela stops before placing anything. Behind that the graph has float "
            "regions (a QOperator or MatMul-only quantization leaves the embedding, mask and normalization math "
            "float; bert-static-quantized-qdq's pooler Tanh reads the last DequantizeLinear's float value and is an "
            "unquantized output), which Vela would refuse next; issue 25 item 3", consumer="vela"),
    Blocker("Failed to create ERF operation",
            "with `quantized_io=\"int8\"` the regions the integer walk does not take stay float (this Whisper-style "
            "encoder's erf GELUs among them; 9706 float tensors), and Vela takes integer TOSA only: its TOSA "
            "builder has no float Erf; issue 25 item 3", consumer="vela", model="pipecat-smart-turn"),
    # Generic last: the first blocker that matches a cell explains it.
    Blocker("a TOSA flatbuffer has static shapes", "the TOSA flatbuffer (and so Arm's reference model) takes static "
            "shapes only, and the module's signature has dynamic dims: `--dim NAME=SIZE` makes it static (ours-dims)",
            consumer="tosa-reference"),
    Blocker("DynamicDimsError: torch-to-tosa", _DYNAMIC_TOSA, backend="tosa"),
    Blocker("failed to legalize operation 'torch.aten.gather'", "a gather of a dynamic number of rows (a tree "
            "ensemble's node lookups over a run-time batch): torch-mlir's TOSA lowering of `aten.gather` takes static "
            "shapes only; with the batch fixed it passes", backend="tosa"),
    Blocker("failed to legalize operation 'torch.aten.slice.Tensor'", "a slice of a dynamic dim (a jax2tf or "
            "keras2onnx strided_slice over a run-time length): torch-mlir's TOSA lowering of `aten.slice.Tensor` "
            "takes static sizes only; with the dims fixed it passes", backend="tosa"),
    Blocker("on tosa the positions are computed padded to the number of elements",
            "NonZero over a run-time number of anchors (dynamic image size): TOSA's padded form of a data-dependent "
            "count pads to the element count, which must be static; with the image size fixed it passes",
            backend="tosa"),
)


def blocker_for(backend: str, consumer: str, error: str, model: str = "") -> str | None:
    """The blocker of a failing cell, or None when no entry explains it."""
    for blocker in BLOCKERS:
        if blocker.backend not in (None, backend) or blocker.consumer not in (None, consumer) \
                or blocker.model not in (None, model):
            continue
        if blocker.error_contains in error:
            return blocker.explanation
    return None
