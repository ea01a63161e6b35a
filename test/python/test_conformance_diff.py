"""tools/conformance_diff.py: two small results directories in, a pull request description out."""

import importlib.util
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("conformance_diff", REPOSITORY / "tools" / "conformance_diff.py")
conformance_diff = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(conformance_diff)

HEADER = "case\tstatus\tstage\tseconds\tmessage\n"
ZOO_HEADER = "model\tconfiguration\tbackend\tconsumer\toutcome\tstage\terror\n"


def write_conformance(root: Path, configuration: str, backend: str, rows: dict) -> None:
    path = root / configuration / f"{backend}.tsv"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + "".join(f"{case}\t{status}\t\t1.0\t{message}\n" for case, (status, message) in rows.items()))


def write_zoo(root: Path, rows: list) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "ours.tsv").write_text(ZOO_HEADER + "".join("\t".join(row) + "\n" for row in rows))
    (root / "builds.tsv").write_text("model\tseconds\nbert\t3\n")  # not a results table: ignored


def make_runs(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    write_conformance(before, "ours", "tosa", {"node/a": ("pass", ""), "node/b": ("pass", ""), "node/c": ("fail", "x")})
    write_conformance(after, "ours", "tosa", {"node/a": ("pass", ""), "node/b": ("fail", "convert: Foo not legal"), "node/c": ("pass", "")})
    write_conformance(before, "ours", "stablehlo", {"node/a": ("pass", "")})
    write_conformance(after, "ours", "stablehlo", {"node/a": ("pass", ""), "node/d": ("pass", "")})
    zoo_before, zoo_after = tmp_path / "zoo-before", tmp_path / "zoo-after"
    write_zoo(zoo_before, [("bert", "ours", "tosa", "iree", "pass", "compare", ""), ("gpt2", "ours", "tosa", "iree", "fail", "compile", "e")])
    write_zoo(zoo_after, [("bert", "ours", "tosa", "iree", "timeout", "run", "no result"), ("gpt2", "ours", "tosa", "iree", "pass", "compare", "")])
    return before, after, zoo_before, zoo_after


def test_gained_and_lost_per_backend_and_zoo_cell(tmp_path, monkeypatch):
    before, after, zoo_before, zoo_after = make_runs(tmp_path)
    output, github = tmp_path / "body.md", tmp_path / "github_output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(github))
    status = conformance_diff.main([str(before), str(after), "--zoo-before", str(zoo_before), "--zoo-after", str(zoo_after),
                                    "-o", str(output), "--fail-on-loss"])
    assert status == 3
    assert github.read_text() == "lost=true\n"
    body = output.read_text()
    assert "loses 2 case(s) or model(s)" in body
    assert "| ours | tosa | 2/3 | 2/3 | +1 | -1 |" in body
    assert "| ours | stablehlo | 1/1 | 2/2 | +1 | -0 |" in body
    assert "- `node/b`: fail: convert: Foo not legal" in body
    assert "- gained (1): `node/c`" in body
    assert "| ours | tosa | iree | 1/2 | 1/2 | +1 | -1 |" in body
    assert "- `bert`: timeout: no result" in body


def test_same_runs_lose_nothing(tmp_path, monkeypatch, capsys):
    before, _, zoo_before, _ = make_runs(tmp_path)
    monkeypatch.delenv("GITHUB_OUTPUT", raising=False)
    assert conformance_diff.main([str(before), str(before), "--fail-on-loss"]) == 0
    body = capsys.readouterr().out
    assert "No case or model that passed before is lost." in body
    assert "Model zoo" not in body


def test_the_repositorys_own_results_parse():
    outcomes = conformance_diff.conformance_outcomes(REPOSITORY / "test" / "conformance" / "results")
    assert ("ours", "linalg-on-tensors") in outcomes
    assert all(status for cases in outcomes.values() for status, _ in cases.values())
    zoo = conformance_diff.zoo_outcomes(REPOSITORY / "test" / "models" / "results")
    assert any(key[0] == "ours" for key in zoo)
