"""The difference between two conformance runs (and two zoo runs), as a pull request's description.

    python tools/conformance_diff.py BEFORE AFTER [--zoo-before DIR --zoo-after DIR] [-o body.md]

BEFORE and AFTER are laid out like test/conformance/results/ (<configuration>/<backend>.tsv, the
columns case, status, ...); the zoo directories like test/models/results/ (<configuration>.tsv
with model, configuration, backend, consumer, outcome, ...). For every configuration and backend
(and, for the zoo, consumer): passes before and after, the cases gained and the cases lost, each
lost case with its new status and message. The weekly toolchain bump (.github/workflows/bump.yml)
writes its pull request's body with it. Exit status 0; with --fail-on-loss, 3 when a case or
model is lost. Under GitHub Actions the step's output `lost` is true or false.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from pathlib import Path

LISTED = 40  # cases named per list; the rest are counted


def read_tsv(path: Path) -> list[dict]:
    with open(path, newline="") as stream:
        return list(csv.DictReader(stream, delimiter="\t"))


def conformance_outcomes(root: Path) -> dict[tuple, dict[str, tuple[str, str]]]:
    """{(configuration, backend): {case: (status, message)}} of a results directory."""
    outcomes = {}
    for path in sorted(root.glob("*/*.tsv")):
        rows = read_tsv(path)
        outcomes[(path.parent.name, path.stem)] = {
            row["case"]: (row["status"], (row.get("message") or "").strip()) for row in rows
        }
    return outcomes


def zoo_outcomes(root: Path) -> dict[tuple, dict[str, tuple[str, str]]]:
    """{(configuration, backend, consumer): {model: (outcome, error)}} of a zoo results directory."""
    outcomes: dict[tuple, dict] = {}
    for path in sorted(root.glob("*.tsv")):
        for row in read_tsv(path):
            if "model" not in row or "outcome" not in row:
                break  # builds.tsv and other tables
            key = (row["configuration"], row["backend"], row["consumer"])
            outcomes.setdefault(key, {})[row["model"]] = (row["outcome"], (row.get("error") or "").strip())
    return outcomes


def compare(before: dict, after: dict) -> list[dict]:
    """One entry per key in either run: pass counts, gained and lost names (sorted)."""
    entries = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key, {}), after.get(key, {})
        passed_before = {name for name, (status, _) in old.items() if status == "pass"}
        passed_after = {name for name, (status, _) in new.items() if status == "pass"}
        entries.append(
            {
                "key": key,
                "before": len(passed_before),
                "after": len(passed_after),
                "total_before": len(old),
                "total_after": len(new),
                "gained": sorted(passed_after - passed_before),
                "lost": [(name, *new.get(name, ("missing", "not in the new run"))) for name in sorted(passed_before - passed_after)],
            }
        )
    return entries


def _names(entry: dict) -> list[str]:
    lines = []
    if entry["lost"]:
        lines.append(f"- lost ({len(entry['lost'])}):")
        for name, status, message in entry["lost"][:LISTED]:
            lines.append(f"  - `{name}`: {status}{': ' + message[:160] if message else ''}")
        if len(entry["lost"]) > LISTED:
            lines.append(f"  - and {len(entry['lost']) - LISTED} more")
    if entry["gained"]:
        shown = ", ".join(f"`{name}`" for name in entry["gained"][:LISTED])
        more = f" and {len(entry['gained']) - LISTED} more" if len(entry["gained"]) > LISTED else ""
        lines.append(f"- gained ({len(entry['gained'])}): {shown}{more}")
    return lines


def section(title: str, columns: tuple[str, ...], entries: list[dict]) -> list[str]:
    lines = [f"## {title}", ""]
    if not entries:
        return lines + ["(no results in either run)", ""]
    lines.append("| " + " | ".join(columns) + " | before | after | gained | lost |")
    lines.append("|" + "---|" * (len(columns) + 4))
    for entry in entries:
        cells = list(entry["key"]) + [f"{entry['before']}/{entry['total_before']}", f"{entry['after']}/{entry['total_after']}",
                                      f"+{len(entry['gained'])}", f"-{len(entry['lost'])}"]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for entry in entries:
        names = _names(entry)
        if names:
            lines += [f"### {' / '.join(entry['key'])}", "", *names, ""]
    return lines


def report(conformance: list[dict], zoo: list[dict] | None, title: str) -> str:
    lost = sum(len(entry["lost"]) for entry in conformance + (zoo or []))
    verdict = (
        f"**This bump loses {lost} case(s) or model(s)**: it is labelled and must not be merged without a look."
        if lost
        else "No case or model that passed before is lost."
    )
    lines = [f"# {title}", "", verdict, ""]
    lines += section("Conformance", ("configuration", "backend"), conformance)
    if zoo is not None:
        lines += section("Model zoo", ("configuration", "backend", "consumer"), zoo)
    lines.append("A case lost to a `timeout` may be load on the runner rather than the bump: re-run it alone.")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="conformance results before (like test/conformance/results)")
    parser.add_argument("after", type=Path, help="conformance results after")
    parser.add_argument("--zoo-before", type=Path, help="zoo results before (like test/models/results)")
    parser.add_argument("--zoo-after", type=Path, help="zoo results after")
    parser.add_argument("--title", default="Conformance and zoo difference")
    parser.add_argument("-o", "--output", type=Path, help="write the description here (default: stdout)")
    parser.add_argument("--fail-on-loss", action="store_true", help="exit status 3 when a case or model is lost")
    args = parser.parse_args(argv)
    if (args.zoo_before is None) != (args.zoo_after is None):
        parser.error("give both --zoo-before and --zoo-after, or neither")
    for path in (args.before, args.after, args.zoo_before, args.zoo_after):
        if path is not None and not path.is_dir():
            parser.error(f"{path}: not a directory")
    conformance = compare(conformance_outcomes(args.before), conformance_outcomes(args.after))
    zoo = compare(zoo_outcomes(args.zoo_before), zoo_outcomes(args.zoo_after)) if args.zoo_before else None
    text = report(conformance, zoo, args.title)
    if args.output:
        args.output.write_text(text)
    else:
        sys.stdout.write(text)
    lost = any(entry["lost"] for entry in conformance + (zoo or []))
    if os.environ.get("GITHUB_OUTPUT"):
        with open(os.environ["GITHUB_OUTPUT"], "a") as stream:
            stream.write(f"lost={'true' if lost else 'false'}\n")
    return 3 if lost and args.fail_on_loss else 0


if __name__ == "__main__":
    sys.exit(main())
