"""MLIR's TOSA validation over our TOSA output for the conformance cases that pass on TOSA.

    .venv/bin/python tools/tosa_validation.py [--sample N] [--update]

Each case that passes on TOSA (test/conformance/passing/ours/tosa.txt) is compiled again, and
`tosa-validate` checks the output against the most permissive target we could claim: TOSA 1.1.draft,
profiles pro_int and pro_fp, every extension (int64, int16, int4, bf16, fp8e4m3, fp8e5m2, fft,
variable, controlflow, dynamic, doubleround, inexactround), no level limits. What fails there is
valid for no TOSA target at all: float64, unsigned and other integer types an op does not take, the
FNUZ float8 types. The counts per first error go to docs/tosa-validation.md with --update (issue 11
item 4 measures its progress with it); IREE refuses the same ops ("not profile-aligned").
"""

from __future__ import annotations

import argparse
import collections
import random
import re
import sys
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPOSITORY / "python"))

TARGET = ("tosa-attach-target{specification_version=1.1.draft profiles=pro_int,pro_fp extensions=int16,int4,int64,"
          "bf16,fp8e4m3,fp8e5m2,fft,variable,controlflow,doubleround,inexactround,dynamic level=none}")
DOCUMENT = REPOSITORY / "docs" / "tosa-validation.md"


def first_error(case) -> str | None:
    """None when the case's TOSA output validates, else its first diagnostic, normalized."""
    from onnx_torch_mlir import compiler, pipelines
    from onnx_torch_mlir.mlir_context import make_context
    from torch_mlir import ir
    from torch_mlir.passmanager import PassManager

    from onnx_torch_mlir import sequence_io

    model, data_sets = case.load()
    if sequence_io.has_sequence_io(model):  # specialized as the conformance run does
        model = sequence_io.specialize(model, *data_sets[0]).model
    module = compiler.import_model(model, "ours", make_context())
    compiler.convert_to_torch(module, "ours", target="tosa")
    pipelines.lower_torch_to_backend(module, "tosa")
    with module.context:
        manager = PassManager.parse(f"builtin.module({TARGET},tosa-validate{{strict-op-spec-alignment}})")
        try:
            manager.run(module.operation)
        except ir.MLIRError as error:
            message = error.error_diagnostics[0].message if error.error_diagnostics else str(error)
            return normalize(message)
    return None


def normalize(message: str) -> str:
    """The diagnostic without its operand types' shapes, so that cases group by cause."""
    message = re.sub(r"tensor<[^>]*x", "tensor<", message)
    message = re.sub(r", did you mean .*", "", message)
    return re.sub(r"\s+", " ", message).strip()[:200]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, help="only N cases, chosen with a fixed seed")
    parser.add_argument("--update", action="store_true", help="write docs/tosa-validation.md")
    args = parser.parse_args(argv)

    from onnx_torch_mlir.conformance.cases import collect_cases

    passing = set((REPOSITORY / "test/conformance/passing/ours/tosa.txt").read_text().split())
    cases = [case for case in collect_cases() if case.case_id in passing]
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
        lines.append(f"{len(ids):4}  {error}  (e.g. {ids[0]})")
    print("\n".join(lines))
    if args.update:
        _write_document(cases, failures, invalid)
    return 0


def _write_document(cases, failures, invalid) -> None:
    out = ["# TOSA validation of our TOSA output", "",
           "Written by `tools/tosa_validation.py --update`; do not edit by hand.", "",
           " ".join(__doc__.split("\n\n")[2].split()), "",
           f"**{len(cases) - invalid} of {len(cases)}** conformance cases that pass on TOSA give TOSA that validates; "
           f"{invalid} do not. By first error:", "",
           "| cases | first error | cases (up to 8) |", "|---|---|---|"]
    for error, ids in sorted(failures.items(), key=lambda item: -len(item[1])):
        shown = ", ".join(f"`{case_id}`" for case_id in sorted(ids)[:8])
        out.append(f"| {len(ids)} | `{error.replace('|', '/')}` | {shown} |")
    DOCUMENT.write_text("\n".join(out) + "\n")
    print(f"wrote {DOCUMENT.relative_to(REPOSITORY)}")


if __name__ == "__main__":
    sys.exit(main())
