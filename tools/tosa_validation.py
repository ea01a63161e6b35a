"""MLIR's TOSA validation over our TOSA output for the conformance cases that pass on TOSA.

    .venv/bin/python tools/tosa_validation.py [-k GLOB ...] [--sample N] [--update]
    .venv/bin/python tools/tosa_validation.py --zoo GLOB   # zoo models passing on TOSA, from the build cache

Each case that passes on TOSA (test/conformance/passing/ours/tosa.txt) is compiled again, and
`tosa-validate` checks the output against the target our TOSA output claims: TOSA 1.1.draft (the
first version with EXT-INT64), profiles pro_int and pro_fp, extensions int16, int64, bf16, fp8e4m3,
fp8e5m2, controlflow and dynamic, no level limits (level 8K's MAX_RANK of 6 is exceeded by the few
cases with tensors of rank 7 or more). Claiming also int4, fft, variable, doubleround and
inexactround makes no case valid that is not (measured on the whole set), so they are not claimed;
what fails is valid for no TOSA target: float64, the FNUZ float8 types, 4-bit data. The counts per
first error go to docs/tosa-validation.md with --update (issue 11 item 4 measures its progress with
it); IREE refuses the same ops ("not profile-aligned").

Every case outside the groups of KNOWN_INVALID must validate against this target. Each group names
the first error it covers and why that output is not valid TOSA; an invalid case in no group is
"unexplained", makes this tool exit 1 and fails test/python/test_tosa_validation.py (which runs a
representative slice of cases and a zoo model). Where our conversion or its post-lowering rewrites
choose the form, they choose a valid one: transforms/tosa/exact_casts.py (casts between floats and
int64), transforms/tosa/narrow_integers.py (i8/i16 arithmetic and comparisons on i32) and
conversion/onnx_to_torch/quantization/tosa_products.py (integer products with run-time or
per-channel zero points as int8 products plus int32 zero-point terms).
"""

from __future__ import annotations

import argparse
import collections
import fnmatch
import random
import re
import sys
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPOSITORY / "python"))

TARGET = ("tosa-attach-target{specification_version=1.1.draft profiles=pro_int,pro_fp "
          "extensions=int16,int64,bf16,fp8e4m3,fp8e5m2,controlflow,dynamic level=none}")
DOCUMENT = REPOSITORY / "docs" / "tosa-validation.md"


class KnownInvalid(collections.namedtuple("KnownInvalid", "name pattern reason")):
    """A group of invalid outputs: `pattern` (a regex) matches the first error, `reason` says why."""


KNOWN_INVALID = (
    KnownInvalid("float64", r"element type 'f64' is not legal",
                 "float64 a program takes as input (the caller's data may be beyond float32's range), or "
                 "float64 that becomes an integer: a lowering computes in float64 on purpose for the answer's "
                 "exactness (integer Pow through double, requantizing with float16 scales), which float32 would "
                 "round, so transforms/tosa/float64.py leaves the module as it is (a model's other float64 is "
                 "computed in float32 there, with a warning); no TOSA profile or extension has f64"),
    KnownInvalid("FNUZ float8", r"f8E4M3FNUZ|f8E5M2FNUZ",
                 "the FNUZ float8 types are not TOSA types (EXT-FP8E4M3 and EXT-FP8E5M2 are the OCP FN types)"),
    KnownInvalid("float4 and E8M0", r"fp4e2m1|fp8e8m0",
                 "FLOAT4E2M1 and FLOAT8E8M0 are in no TOSA 1.x profile or extension"),
    KnownInvalid("4-bit integers", r"got \((i4,|[^)]*,i4\))",
                 "INT4/UINT4 data: EXT-INT4 takes i4 only as the weights of convolutions and matmuls, not in "
                 "casts or reshapes"),
    KnownInvalid("reshape to an inferred size", r"inferable dimension \(-1\)",
                 "a model with dynamic dims compiled without --dim: a reshape keeps one run-time size as -1, "
                 "which MLIR's TOSA dialect and its lowering to Linalg (IREE's too) take but the TOSA "
                 "specification does not (its shapes are fully known); with --dim NAME=SIZE the output is "
                 "static and valid"),
)


def known_invalid(error: str) -> KnownInvalid | None:
    """The group of KNOWN_INVALID whose pattern matches `error`, None for an unexplained error."""
    return next((group for group in KNOWN_INVALID if re.search(group.pattern, error)), None)


def validation_error(module) -> str | None:
    """None when the TOSA `module` validates against TARGET, else its first diagnostic, normalized.
    The module gets TARGET's attributes (tosa-attach-target)."""
    from torch_mlir import ir
    from torch_mlir.passmanager import PassManager

    with module.context:
        manager = PassManager.parse(f"builtin.module({TARGET},tosa-validate{{strict-op-spec-alignment}})")
        try:
            manager.run(module.operation)
        except ir.MLIRError as error:
            message = error.error_diagnostics[0].message if error.error_diagnostics else str(error)
            return normalize(message)
    return None


def first_error(case) -> str | None:
    """None when the case's TOSA output validates, else its first diagnostic, normalized."""
    from onnx_torch_mlir import compiler, pipelines, sequence_io
    from onnx_torch_mlir.mlir_context import make_context

    model, data_sets = case.load()
    if sequence_io.has_sequence_io(model):  # specialized as the conformance run does
        model = sequence_io.specialize(model, *data_sets[0]).model
    module = compiler.import_model(model, "ours", make_context())
    compiler.convert_to_torch(module, "ours", target="tosa")
    pipelines.lower_torch_to_backend(module, "tosa")
    return validation_error(module)


def normalize(message: str) -> str:
    """The diagnostic without its operand types' shapes, so that cases group by cause."""
    message = re.sub(r"tensor<[^>]*x", "tensor<", message)
    message = re.sub(r", did you mean .*", "", message)
    return re.sub(r"\s+", " ", message).strip()[:200]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", dest="globs", action="append", help="only cases whose id matches (repeatable)")
    parser.add_argument("--sample", type=int, help="only N cases, chosen with a fixed seed")
    parser.add_argument("--update", action="store_true", help="write docs/tosa-validation.md")
    parser.add_argument("--zoo", metavar="GLOB", help="validate the cached builds of the zoo models passing on TOSA")
    args = parser.parse_args(argv)
    if args.zoo:
        return _validate_zoo(args.zoo)

    from onnx_torch_mlir.conformance.cases import collect_cases

    passing = set((REPOSITORY / "test/conformance/passing/ours/tosa.txt").read_text().split())
    cases = [case for case in collect_cases() if case.case_id in passing
             and (not args.globs or any(fnmatch.fnmatch(case.case_id, glob) for glob in args.globs))]
    if args.sample:
        cases = random.Random(0).sample(cases, min(args.sample, len(cases)))
    started = time.perf_counter()
    failures: dict[str, list[str]] = collections.defaultdict(list)
    for index, case in enumerate(cases, 1):
        try:
            error = first_error(case)
        except Exception as exception:  # noqa: BLE001 - a case that no longer compiles is reported as such
            error = f"does not compile now: {type(exception).__name__}"
        if error:
            failures[error].append(case.case_id)
        if sys.stderr.isatty():
            print(f"\r{index}/{len(cases)}", end="", file=sys.stderr, flush=True)
    invalid = sum(len(ids) for ids in failures.values())
    lines = [f"{len(cases)} cases passing on TOSA checked, {len(cases) - invalid} valid, {invalid} invalid "
             f"({time.perf_counter() - started:.0f} s)"]
    for error, ids in sorted(failures.items(), key=lambda item: -len(item[1])):
        group = known_invalid(error)
        lines.append(f"{len(ids):4}  [{group.name if group else 'UNEXPLAINED'}] {error}  (e.g. {ids[0]})")
    print("\n".join(lines))
    if args.update:
        if args.globs or args.sample:
            parser.error("--update writes the whole set's counts: no -k or --sample")
        _write_document(cases, failures, invalid)
    return 1 if any(known_invalid(error) is None for error in failures) else 0


def _validate_zoo(glob: str) -> int:
    """Compile each zoo model that passes on TOSA (reference runner) and matches `glob` from its cached
    build (test/models/build_zoo.py; models never built are listed, not built) and validate it."""
    import onnx_torch_mlir

    sys.path.insert(0, str(REPOSITORY / "test" / "models"))
    import build_zoo

    passing = (REPOSITORY / "test/models/passing/ours/reference-tosa.txt").read_text().split("\n")
    passing = {line.strip() for line in passing if line.strip() and not line.startswith("#")}
    unexplained = 0
    for model in build_zoo.select([glob]):
        if model.name not in passing:
            continue
        directory = build_zoo.cache_directory(model)
        if not (directory / "build.json").exists():
            print(f"{model.name}: not built (make zoo builds it)")
            continue
        started = time.perf_counter()
        module = onnx_torch_mlir.compile(str(directory / "model.onnx"), output_type="tosa")
        error = validation_error(module)
        group = known_invalid(error) if error else None
        unexplained += bool(error and not group)
        verdict = "valid" if not error else f"[{group.name if group else 'UNEXPLAINED'}] {error}"
        print(f"{model.name}: {verdict} ({time.perf_counter() - started:.0f} s)", flush=True)
    return 1 if unexplained else 0


def _write_document(cases, failures, invalid) -> None:
    out = ["# TOSA validation of our TOSA output", "",
           "Written by `tools/tosa_validation.py --update`; do not edit by hand.", "",
           "**The claim.** Our TOSA output validates against " + _claim() + ", except the known groups below.", "",
           " ".join(__doc__.split("\n\n")[2].split()), "",
           " ".join(__doc__.split("\n\n")[3].split()), "",
           f"**{len(cases) - invalid} of {len(cases)}** conformance cases that pass on TOSA give TOSA that validates; "
           f"{invalid} do not. By known group:", "",
           "| group | cases | why the output is not valid TOSA |", "|---|---|---|"]
    by_group: dict[str, int] = collections.Counter()
    for error, ids in failures.items():
        group = known_invalid(error)
        by_group[group.name if group else "UNEXPLAINED"] += len(ids)
    for group in KNOWN_INVALID:
        out.append(f"| {group.name} | {by_group.get(group.name, 0)} | {group.reason} |")
    if by_group.get("UNEXPLAINED"):
        out.append(f"| UNEXPLAINED | {by_group['UNEXPLAINED']} | in no group: a bug to fix or a group to add |")
    out += ["", "By first error:", "", "| cases | group | first error | cases (up to 8) |", "|---|---|---|---|"]
    for error, ids in sorted(failures.items(), key=lambda item: (-len(item[1]), item[0])):
        group = known_invalid(error)
        shown = ", ".join(f"`{case_id}`" for case_id in sorted(ids)[:8])
        out.append(f"| {len(ids)} | {group.name if group else 'UNEXPLAINED'} | `{error.replace('|', '/')}` | {shown} |")
    DOCUMENT.write_text("\n".join(out) + "\n")
    print(f"wrote {DOCUMENT.relative_to(REPOSITORY)}")


def _claim() -> str:
    """TARGET in words."""
    options = dict(re.findall(r"(\w+)=([^ }]+)", TARGET))
    return (f"TOSA {options['specification_version']}, profiles {options['profiles'].replace(',', ' and ')}, "
            f"extensions {options['extensions'].replace(',', ', ')}, level {options['level']}")


if __name__ == "__main__":
    sys.exit(main())
