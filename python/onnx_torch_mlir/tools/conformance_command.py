"""Run the conformance suite: ONNX's node cases and the model data in the onnx wheel,
compiled through each backend, run on the reference CPU runner and compared with
the expected outputs at each case's tolerance.

--check fails (exit 1) when a case listed in test/conformance/passing/ stops
passing; --update rewrites the passing lists, the per-case results and
docs/conformance.md.
"""

import fnmatch
import sys
import time

from ..errors import OnnxTorchMlirError

HELP = "run the conformance suite (check against, or update, the passing lists)"


def add_arguments(parser):
    from ..conformance.cases import SUITES
    from ..conformance.configurations import CONFIGURATIONS
    from ..pipelines import BACKENDS

    parser.add_argument(
        "--configuration",
        action="append",
        choices=sorted(CONFIGURATIONS),
        help="whose importer and conversion to run (repeatable; default: ours)",
    )
    parser.add_argument("--backend", action="append", choices=BACKENDS, help="repeatable; default: every enabled backend")
    parser.add_argument("--suite", action="append", choices=SUITES, help="repeatable; default: all suites")
    parser.add_argument("-k", "--filter", action="append", metavar="GLOB", help="only cases whose id matches (e.g. 'node/test_conv*')")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once, each in its own process (default 2)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a case is killed (default 120)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="fail when a listed passing case no longer passes")
    mode.add_argument("--update", action="store_true", help="rewrite passing lists, results and docs/conformance.md")
    mode.add_argument("--coverage", action="store_true",
                      help="custom-op coverage: mark every Torch op of each case backend-legal and report, per op "
                      "and backend, whether it became a custom op (with -k: print; without: also rewrite "
                      "docs/custom-op-coverage.md)")
    parser.add_argument("--coverage-report", metavar="FILE", help="with --coverage: write the report here")
    parser.add_argument("--fail-on-pipeline-errors", action="store_true",
                        help="with --coverage: exit 1 when a backend pipeline fails in a case (make test's slice)")
    parser.add_argument("--one-case-per-op", action="store_true",
                        help="with --coverage: only the first node case of each ONNX op type (a fast slice)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every case's result")


def run(args) -> int:
    from ..conformance import CONFIGURATIONS, SUITES, collect_cases
    from ..conformance import report

    from .. import config
    from ..pipelines import BACKENDS

    configurations = [CONFIGURATIONS[name] for name in (args.configuration or ["ours"])]
    for backend in args.backend or []:
        config.require_output_type(backend)
    backends = args.backend or config.enabled_backends(BACKENDS)
    if not config.is_enabled("torch"):
        skipped = [c.name for c in configurations if "torch-mlir" in (c.importer, c.converter)]
        if skipped:
            print(f"conformance: skipping {', '.join(skipped)}: {config.refusal('torch')}")
        configurations = [c for c in configurations if c.name not in skipped]
    if args.jobs < 1:
        raise OnnxTorchMlirError(f"--jobs must be at least 1, got {args.jobs}")
    cases = collect_cases(tuple(args.suite or SUITES))
    if args.filter:
        cases = [case for case in cases if any(fnmatch.fnmatch(case.case_id, pattern) for pattern in args.filter)]
    if not cases:
        raise OnnxTorchMlirError("no conformance case matches the filters")
    if args.update and (args.filter or args.suite):
        raise OnnxTorchMlirError("--update needs the whole suite: drop --suite and -k")
    if args.coverage:
        return _coverage(cases, args)
    kept = regressed = 0
    for configuration in configurations:
        for backend in backends:
            results = _run_one(cases, configuration, backend, args)
            if args.update:
                report.write_results(configuration.name, backend, results)
                report.write_passing(configuration.name, backend, results)
            if args.check:
                still, lost = _check(cases, results, configuration, backend, args)
                kept, regressed = kept + still, regressed + lost
    if args.check:
        # Listed cases: those still passing, and those that regressed.
        print(f"conformance: {kept} passed, {regressed} failed")
    if args.update:
        from ..conformance.configurations import CONFIGURATIONS as every

        from .. import supported_ops

        path = report.write_report(list(every.values()), list(BACKENDS))
        ops_path = report.REPOSITORY / "docs" / "supported-ops.md"
        ops_path.write_text(supported_ops.markdown())
        print(f"wrote {path.relative_to(report.REPOSITORY)}, docs/supported-ops.md and the passing lists")
    return 1 if regressed else 0


def _coverage(cases, args) -> int:
    """--coverage: every Torch op of every case backend-legal; per op, did it become a custom op."""
    from .. import config
    from ..conformance import CONFIGURATIONS, run_cases
    from ..conformance import coverage, report

    backends = config.enabled_backends(coverage.COVERAGE_BACKENDS)
    if args.one_case_per_op:
        cases = coverage.one_case_per_op(cases)
    progress = _Progress("custom-op coverage", len(cases), args.verbose)
    started = time.perf_counter()
    results = run_cases(cases, CONFIGURATIONS["ours"], "all", jobs=args.jobs, timeout=args.timeout,
                        on_result=progress, case_runner=coverage.coverage_case)
    progress.close()
    summary = coverage.aggregate(results)
    command = "onnx-torch-mlir conformance --coverage" + (" --one-case-per-op" if args.one_case_per_op else "") + "".join(
        f" -k '{k}'" for k in args.filter or []
    )
    text = coverage.markdown(summary, backends, command, len(cases))
    whole = not (args.filter or args.suite) or args.one_case_per_op
    target = args.coverage_report or (report.REPOSITORY / "docs" / "custom-op-coverage.md" if whole else None)
    if target:
        from pathlib import Path

        Path(target).write_text(text)
        print(f"wrote {target}")
    ops = summary["ops"]
    for backend in backends:
        custom = sum(1 for entry in ops.values() if set(entry["backends"].get(backend, {})) == {"custom"})
        print(f"coverage -> {backend}: {custom} of {len(ops)} Torch ops became custom ops in every case")
    print(f"coverage: {len(cases)} cases in {time.perf_counter() - started:.0f} s")
    failed = [op for op, entry in ops.items() for counter in entry["backends"].values() if "pipeline" in counter]
    if args.fail_on_pipeline_errors and failed:
        print(f"coverage: the backend pipeline failed around custom ops of {', '.join(sorted(set(failed)))}")
        return 1
    return 0


def _run_one(cases, configuration, backend, args):
    from ..conformance import run_cases

    label = f"{configuration.name} -> {backend}"
    progress = _Progress(label, len(cases), args.verbose)
    started = time.perf_counter()
    results = run_cases(cases, configuration, backend, jobs=args.jobs, timeout=args.timeout, on_result=progress)
    progress.close()
    passed = sum(result.passed for result in results.values())
    crashed = sum(result.status == "crash" for result in results.values())
    timed_out = sum(result.status == "timeout" for result in results.values())
    print(
        f"{label}: {passed} passed, {len(results) - passed} failed "
        f"({crashed} crashed, {timed_out} timed out) of {len(results)} cases in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    return results


def _check(cases, results, configuration, backend, args) -> tuple[int, int]:
    """(listed cases still passing, listed cases that regressed).

    A listed case that fails is retried once on its own, so a timeout caused by
    machine load is not reported as a regression.
    """
    from ..conformance import run_cases
    from ..conformance import report

    listed = report.read_passing(configuration.name, backend)
    if listed is None:
        print(f"{configuration.name} -> {backend}: no passing list yet; run `make conformance` to create it")
        return 0, 0
    selected = {case.case_id for case in cases}
    regressed = [case_id for case_id in listed if case_id in selected and not results[case_id].passed]
    if regressed:
        retry = [case for case in cases if case.case_id in set(regressed)]
        again = run_cases(retry, configuration, backend, jobs=1, timeout=args.timeout * 2)
        regressed = [case_id for case_id in regressed if not again[case_id].passed]
    for case_id in regressed:
        result = results[case_id]
        print(f"REGRESSION {configuration.name} -> {backend}: {case_id}: {result.stage or result.status}: {result.message}")
    newly = sorted(case_id for case_id, result in results.items() if result.passed and case_id not in set(listed))
    if newly:
        print(
            f"{configuration.name} -> {backend}: {len(newly)} cases pass that are not in "
            f"{report.passing_path(configuration.name, backend).relative_to(report.REPOSITORY)}; "
            "run `make conformance` to add them"
        )
    checked = sum(case_id in selected for case_id in listed)
    return checked - len(regressed), len(regressed)


class _Progress:
    """One updating line on a terminal; every result with --verbose; quiet when piped."""

    def __init__(self, label, total, verbose):
        self.label, self.total, self.verbose = label, total, verbose
        self.done = self.passed = 0
        self.live = sys.stderr.isatty()

    def __call__(self, result):
        self.done += 1
        self.passed += result.passed
        if self.verbose:
            detail = "" if result.passed else f" [{result.stage or result.status}] {result.message}"
            print(f"{result.status.upper():7} {result.case_id}{detail}", flush=True)
        elif self.live:
            sys.stderr.write(f"\r{self.label}: {self.done}/{self.total} run, {self.passed} passed ")
            sys.stderr.flush()

    def close(self):
        if self.live and not self.verbose:
            sys.stderr.write("\r" + " " * 70 + "\r")
