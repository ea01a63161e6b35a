"""Why a conformance case fails: a small table of rules, read by the report.

Each rule matches a failing case by a regex on its first error line (the
results file's message column), by a glob on its case id, or both, optionally
only on some backends. The first rule that matches gives the case's category
and a one-line reason; a case no rule matches is "unclassified" (and
test_failure_reasons.py fails when a Linalg failure is). Keep the reasons
honest: an "upstream bug" names the component and the exact error, and its
case id is the reproducer; what is ours to do goes to "not yet supported".
"""

import fnmatch
import re
from dataclasses import dataclass

HARNESS_LIMIT = "harness limit"
UPSTREAM_BUG = "upstream bug"
NOT_REPRESENTABLE = "not representable in torch"
BACKEND_CANNOT_EXPRESS = "backend cannot express"
NOT_YET_SUPPORTED = "not yet supported"
UNCLASSIFIED = "unclassified"
CATEGORIES = (HARNESS_LIMIT, UPSTREAM_BUG, NOT_REPRESENTABLE, BACKEND_CANNOT_EXPRESS, NOT_YET_SUPPORTED, UNCLASSIFIED)

LINALG = "linalg-on-tensors"
TOSA = "tosa"
STABLEHLO = "stablehlo"


@dataclass(frozen=True)
class Rule:
    category: str
    reason: str
    message: str = ""  # regex searched in the first error line
    case: str = ""  # glob on the full case id
    backends: tuple[str, ...] = ()  # empty: every backend

    def matches(self, case_id: str, message: str, backend: str) -> bool:
        if self.backends and backend not in self.backends:
            return False
        if self.case and not fnmatch.fnmatchcase(case_id, self.case):
            return False
        return not self.message or re.search(self.message, message) is not None


def _missing_tosa_lowering(op: str, why: str) -> Rule:
    return Rule(
        BACKEND_CANNOT_EXPRESS,
        f"torch-mlir's TorchToTosa does not lower `aten.{op}` ({why})",
        message=rf"torch-to-tosa: .*failed to legalize operation 'torch\.aten\.{re.escape(op)}'",
        backends=(TOSA,),
    )


RULES: tuple[Rule, ...] = (
    # --- harness limits: the program may be right; the runner or the case cannot show it
    Rule(HARNESS_LIMIT, "no result within the per-case time limit (120 s, 2 shared cores)", message=r"^no result within \d+ s"),
    Rule(
        HARNESS_LIMIT,
        "the reference CPU runner cannot run float8 arithmetic: MLIR's LLVM lowering in this toolchain has no float8 "
        "(issue 10 item 5: emulate float8 in the runner)",
        message=r"float8 type \S+ \((argument|result) \d+\) cannot be lowered to native code",
    ),
    Rule(
        HARNESS_LIMIT,
        "a float8/float4 form the reference CPU runner's emulation (runtime/small_floats.py) does not cover: "
        "MLIR's LLVM lowering cannot compute with these types",
        message=r"is not emulated by the reference CPU runner|cannot be emulated by the reference CPU runner"
        r"|that is not a scalar .* cannot be emulated",
    ),
    Rule(
        HARNESS_LIMIT,
        "the reference CPU runner has no float4e2m1 buffers (MLIR's LLVM lowering has no float4)",
        message=r"element type f4E2M1FN .*not supported by the reference CPU runner",
    ),
    Rule(
        HARNESS_LIMIT,
        "random output: the expected values come from the generator of ONNX's reference, which no compiled program reproduces",
        case="node/test_bernoulli*",
        message=r"values differ",
    ),
    Rule(
        HARNESS_LIMIT,
        "random values: a training-mode Dropout with a nonzero ratio draws its mask at random; the expected outputs "
        "come from numpy's generator in ONNX's reference, which no compiled program reproduces (the ratio-0 cases "
        "pass)",
        case="node/test_training_dropout*",
        message=r"values differ",
    ),
    Rule(
        HARNESS_LIMIT,
        "the runner's StableHLO-to-LLVM pipeline leaves `bufferization.to_tensor` unlegalized (scatter, compress, "
        "max-unpool forms); the StableHLO program itself is not at fault",
        message=r"lowering the stablehlo program to LLVM failed: .*failed to legalize operation 'bufferization\.to_tensor'",
        backends=(STABLEHLO,),
    ),
    Rule(
        HARNESS_LIMIT,
        "the runner's lowering of a uint64 `stablehlo.sort` (runtime/stablehlo_sort.py) extracts an unsigned "
        "element as a signless one ('tensor.extract' op failed to verify that result type matches element type)",
        message=r"lowering the stablehlo program to LLVM failed: .*'tensor.extract' op failed to verify",
        case="node/test_top_k_uint64",
        backends=(STABLEHLO,),
    ),
    # --- upstream bugs: the case id is the reproducer
    Rule(
        UPSTREAM_BUG,
        "torch-mlir's TorchToLinalg lowering of `aten.gelu(approximate='tanh')` is off by 1.4e-5 (beyond atol 1e-7); "
        "torch-mlir's own ONNX path fails the same way",
        case="node/test_gelu_tanh_2",
        message=r"values differ",
    ),
    Rule(
        UPSTREAM_BUG,
        "torch-mlir's TorchToStablehlo: 'failed to legalize operation torch.constant.bool / torch.constant.int' "
        "(the error names an operand constant of the scatter/upsample/einsum/nonzero op whose pattern did not apply)",
        message=r"torch-to-stablehlo: .*failed to legalize operation 'torch\.constant\.(bool|int)'",
        backends=(STABLEHLO,),
    ),
    Rule(
        UPSTREAM_BUG,
        "torch-mlir's TorchToStablehlo lowers `aten.remainder` (ONNX Mod, fmod=0) with C's sign rule, wrong for mixed "
        "signs and infinities (the same Torch program passes on Linalg)",
        case="node/test_mod_*",
        message=r"values differ",
        backends=(STABLEHLO,),
    ),
    # --- not representable in torch
    Rule(
        NOT_REPRESENTABLE,
        "string tensors: torch has no string dtype; strings held as bytes reach only StringNormalizer, Tokenizer "
        "and TfIdfVectorizer (importer/string_bytes.py)",
        message=r"element type STRING has no MLIR equivalent|torch has no string tensors"
        r"|reads the string tensor|is a string tensor: strings are compiled as bytes|stopwords remove strings",
    ),
    Rule(NOT_REPRESENTABLE, "a cast to int4/uint4: torch has no 4-bit integer dtype", message=r"a cast to int4 or uint4 is not supported"),
    Rule(
        NOT_REPRESENTABLE,
        "float4e2m1 results: the Torch dialect has no float4 dtype",
        message=r"float4e2m1 tensors are not supported|names ONNX data type 23,",
    ),
    Rule(
        NOT_REPRESENTABLE,
        "float4e2m1 results: the Torch dialect has no float4 dtype (our CastLike reports it as an internal KeyError, "
        "which is ours to turn into this message)",
        message=r"internal error in cast_like: KeyError: 'f4E2M1FN'",
    ),
    Rule(NOT_REPRESENTABLE, "a cast to float4e2m1: the Torch dialect has no float4 dtype to cast to",
         message=r"a cast to float4e2m1 is not supported"),
    Rule(UPSTREAM_BUG, "a cast to float8e8m0: torch-mlir's Linalg and TOSA lowerings have no float8_e8m0fnu dtype "
         "(torch ScalarType 44), so no torch op can produce one (the rounding itself is integer arithmetic on the "
         "float32 bits). Reproducer: `torch.aten.view.dtype %ui8, %int44 -> !torch.vtensor<[4],f8E8M0FNU>` through "
         "torch-backend-to-linalg-on-tensors-backend-pipeline: failed to legalize 'torch.constant.int' 44",
         message=r"a cast to float8e8m0 is not supported"),
    Rule(
        NOT_REPRESENTABLE,
        "a graph output that is a sequence of run-time length whose elements differ in shape (node/test_loop13_seq: "
        "a Loop with a run-time trip count appends x[:i+1]; node/test_loop16_seq_none: the same on an optional "
        "sequence input; node/test_split_to_sequence_1: a run-time 'split' sets how many parts there are): a "
        "compiled function returns a fixed number of tensors (torch's backend contract has no list at a function "
        "boundary), and no single tensor holds elements of different shapes",
        case="node/test_*_seq*",
        message=r"a Loop that (carries|appends to) a sequence|\(OptionalHasElement, domain .*not known at compile time|"
        r"\(SplitToSequence, domain .*'split' must be a constant",
    ),
    Rule(NOT_REPRESENTABLE, "float8e8m0 results: the Torch dialect has no float8e8m0 dtype", message=r"names ONNX data type 24,"),
    Rule(
        NOT_REPRESENTABLE,
        "ImageDecoder: decoding JPEG/PNG/BMP/TIFF/WebP bytes has no tensor-op form in torch",
        message=r"\(ImageDecoder, domain",
    ),
    # --- backend cannot express (TOSA / StableHLO)
    Rule(
        BACKEND_CANNOT_EXPRESS,
        "a run-time scalar read (`aten.item`) has no TOSA/StableHLO lowering: these forms need static values",
        message=r"torch-to-(tosa|stablehlo): .*failed to legalize operation 'torch\.aten\.item'",
        backends=(TOSA, STABLEHLO),
    ),
    Rule(
        BACKEND_CANNOT_EXPRESS,
        "a run-time 'split' would be read with `aten.item`, which TOSA/StableHLO cannot lower",
        message=r"a run-time 'split' is read with aten\.item, which (tosa|stablehlo) cannot lower",
        backends=(TOSA, STABLEHLO),
    ),
    Rule(
        BACKEND_CANNOT_EXPRESS,
        "Unique: the output size depends on the data; TOSA/StableHLO need static shapes",
        message=r"\(Unique, domain .*needs static shapes",
        backends=(TOSA, STABLEHLO),
    ),
    Rule(
        BACKEND_CANNOT_EXPRESS,
        "a Loop with an early exit: torch-mlir lowers `torch.prim.Loop` only to Linalg, and unrolling needs no early exit",
        message=r"\(Loop, domain .*a Loop is unrolled",
        backends=(TOSA, STABLEHLO),
    ),
    Rule(
        BACKEND_CANNOT_EXPRESS,
        "BitCast between 64-bit types needs 64-bit integer arithmetic, which TOSA does not have",
        message=r"\(BitCast, domain .*which TOSA does not have",
        backends=(TOSA,),
    ),
    Rule(
        BACKEND_CANNOT_EXPRESS,
        "a zero-sized constant: torch-mlir's TorchToTosa refuses `torch.vtensor.literal` with a zero-sized type",
        message=r"torch-to-tosa: .*failed to legalize operation 'torch\.vtensor\.literal'.*tensor<(\d+x)*0(x\d+)*x?\w+>",
        backends=(TOSA,),
    ),
    Rule(
        BACKEND_CANNOT_EXPRESS,
        "a dilated max pool: TOSA's max_pool2d has no dilation, so torch-mlir's TorchToTosa refuses it",
        case="*dilation*",
        message=r"torch-to-tosa: .*failed to legalize operation 'torch\.aten\.max_pool2d'",
        backends=(TOSA,),
    ),
    *(
        _missing_tosa_lowering(op, "TOSA has no such op and torch-mlir no decomposition")
        for op in ("acos", "acosh", "asin", "asinh", "atanh", "cosh", "sinh", "scatter_add", "scatter_reduce.two", "sort")
    ),
    *(
        _missing_tosa_lowering(op, "in this form; we might emit another one")
        for op in ("max_pool1d", "arange.start_step", "tensor")
    ),
    Rule(
        BACKEND_CANNOT_EXPRESS,
        "torch-mlir's TorchToStablehlo needs constant pad amounts for `aten.constant_pad_nd`; here they are computed at run time",
        message=r"torch-to-stablehlo: .*failed to legalize operation 'torch\.aten\.constant_pad_nd'",
        backends=(STABLEHLO,),
    ),
    # --- not yet supported: ours to do
    Rule(
        NOT_YET_SUPPORTED,
        "a Slice with a run-time start inside a TOSA while loop (`x[i:i+1]`): TorchToTosa takes constant starts "
        "only; a gather form would express it",
        case="node/test_loop11",
        message=r"torch-to-tosa: .*failed to legalize operation 'torch\.aten\.slice\.Tensor'",
        backends=(TOSA,),
    ),
    Rule(
        BACKEND_CANNOT_EXPRESS,
        "SequenceInsert at a run-time position into elements of different lengths: each result element's shape "
        "depends on the data (Linalg picks each element with torch.prim.If)",
        case="node/test_sequence_insert_at_front",
        message=r"a run-time 'position' needs the sequence's elements",
        backends=(TOSA,),
    ),
    Rule(NOT_YET_SUPPORTED, "ai.onnx.ml operators: no conversion yet", message=r"domain 'ai\.onnx\.ml'.*has no conversion to torch yet"),
    Rule(
        NOT_YET_SUPPORTED,
        "Dropout with a run-time 'training_mode' input (the message of results from before its conversion; "
        "drop this rule once the results are regenerated)",
        message=r"\(Dropout, domain .*'training_mode' must be a constant",
    ),
    Rule(
        NOT_YET_SUPPORTED,
        "LinearAttention: its function body has a Scan over run-time values, which we do not expand (the message "
        "of results from before its direct conversion; drop this rule once the results are regenerated)",
        message=r"\(LinearAttention, domain .*subgraph \(Scan\) that depends on runtime values",
    ),
    Rule(
        NOT_YET_SUPPORTED,
        "expanded LinearAttention: our Scan conversion gives a state a static empty type that does not cast to the "
        "dynamic one ('torch.tensor_static_info_cast ... are cast incompatible'; the message of results from before "
        "the fix in control_flow/rows.py; drop this rule once the results are regenerated)",
        message=r"loc\(\"Scan:.*'torch\.tensor_static_info_cast' op .*cast incompatible",
    ),
    Rule(
        NOT_REPRESENTABLE,
        "expanded 3-D AffineGrid with align_corners: its body's `If` on D == 1 (D read from the run-time `size` "
        "input) yields a scalar in one branch and a 1-element tensor in the other, so the value's rank depends on "
        "run-time data; a torch value has one rank (the direct AffineGrid conversion passes)",
        case="node/test_affine_grid_3d_align_corners_expanded",
        message=r"\(If, domain .*has different ranks",
    ),
    Rule(
        BACKEND_CANNOT_EXPRESS,
        "expanded 3-D AffineGrid: its body reshapes to sizes read from the run-time `size` input, which TOSA's "
        "compile-time shapes cannot take (the direct AffineGrid conversion passes)",
        case="node/test_affine_grid_3d_expanded",
        message=r"needs the run-time size",
        backends=(TOSA,),
    ),
    Rule(
        NOT_YET_SUPPORTED,
        "expanded function bodies whose values lose static ranks or shapes after ONNX shape inference; the "
        "conversion needs them",
        message=r"needs a static rank|without 'axes', needs static dims|'input' must be a consta",
    ),
    Rule(
        BACKEND_CANNOT_EXPRESS,
        "a Loop whose scan outputs grow by a row per iteration with a run-time trip count: a carried tensor whose "
        "size changes at run time, which torch-mlir's TOSA lowering cannot take",
        message=r"on tosa this Loop is a while loop, and its scan out",
        backends=(TOSA,),
    ),
    Rule(
        NOT_YET_SUPPORTED,
        "sequences and optionals of run-time length or presence (graph inputs, run-time positions or splits, If "
        "outputs): only statically known ones are converted",
        message=r"\((SequenceInsert|SequenceAt|SplitToSequence|OptionalHasElement|If), domain .*"
        r"(not known at compile time|a run-time 'position'|'split' must be a constant|only tensor outputs are supported)",
    ),
    Rule(
        NOT_YET_SUPPORTED,
        "expanded SequenceMap: its loop body reads and inserts at run-time positions of a sequence whose elements "
        "have no one ranked type",
        case="node/test_sequence_map_*_expanded",
        message=r"convert-onnx-to-torch: loc\(\"Sequence(Insert|At):SequenceMap_",
    ),
    Rule(NOT_YET_SUPPORTED, "no conversion yet", message=r"has no conversion to torch yet"),
    Rule(
        UPSTREAM_BUG,
        "bfloat16 Attention: ONNX's reference sums the softmax denominator in bfloat16, one rounding per "
        "term (ml_dtypes' reduction; its float16 sums accumulate in float32), where we accumulate in float32 "
        "(a bfloat16 accumulator stops growing after 256 terms of 1); a bfloat16 unit in the last place is "
        "0.4%, above rtol=1e-3. Reproducer: for node/test_attention_4d_causal_bf16, the reference with its sum "
        "accumulated in float32 gives our Linalg output bit for bit",
        case="node/test_attention_*bf16*",
        message=r"values differ beyond rtol",
    ),
    *(
        Rule(
            NOT_YET_SUPPORTED,
            "half-precision results a rounding step off the reference beyond rtol=1e-3 (where intermediates are "
            "rounded to bf16/fp16)",
            case=glob,
            message=r"values differ beyond rtol",
        )
        for glob in ("*bf16*", "*fp16*", "*bfloat16*")
    ),
    Rule(
        UPSTREAM_BUG,
        "inverse DFT: the expected output is numpy's complex64 ifft (numpy 2 transforms complex64 in float32), "
        "which leaves up to 1.9e-7 where the exact value is 0, beyond atol=1e-7; our output computed in float64 "
        "differs from it by the same 1.91e-7. Reproducer: np.fft.ifft(np.arange(100, dtype=np.complex64)"
        ".reshape(10, 10), axis=0) is 1.5e-6 off the complex128 transform",
        case="node/test_dft_inverse*",
        message=r"values differ beyond rtol",
    ),
    Rule(
        NOT_YET_SUPPORTED,
        "TOSA gives NaN where the reference gives a number (fully masked attention rows, Mod at zeros and "
        "infinities); the same Torch program passes on Linalg; not yet reduced to ours or torch-mlir's",
        message=r"NaN where a number was expected",
        backends=(TOSA,),
    ),
)


def classify(case_id: str, message: str, backend: str) -> tuple[str, str]:
    """(category, reason) of one failing case: the first rule that matches, else unclassified."""
    for rule in RULES:
        if rule.matches(case_id, message, backend):
            return rule.category, rule.reason
    return UNCLASSIFIED, "no rule in failure_reasons.py matches its error"


def group_failures(results, backend: str) -> dict[tuple[str, str], list[str]]:
    """(category, reason) -> the failing case ids, for one backend's results (case id -> CaseResult)."""
    groups: dict[tuple[str, str], list[str]] = {}
    for case_id in sorted(results):
        result = results[case_id]
        if not result.passed:
            groups.setdefault(classify(case_id, result.message, backend), []).append(case_id)
    return groups
