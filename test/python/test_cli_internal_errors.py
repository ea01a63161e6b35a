"""A bug inside the tools is reported as one line naming where it happened, with exit status 3."""

import pytest

from onnx_torch_mlir.tools import cli_support


def _buggy_action():
    return {}["missing"]


def test_internal_error_is_one_line_with_its_place_and_exit_3(capsys, monkeypatch):
    monkeypatch.delenv(cli_support.TRACEBACK_VARIABLE, raising=False)
    status = cli_support.run_guarded("onnx-torch-mlir", _buggy_action)
    error = capsys.readouterr().err
    assert status == cli_support.EXIT_INTERNAL == 3
    assert error.count("\n") == 1 and "Traceback" not in error
    assert error.startswith("onnx-torch-mlir: error: internal error: KeyError: 'missing'")
    assert cli_support.TRACEBACK_VARIABLE in error


class _Unprintable:
    def __str__(self):
        raise ValueError("cannot print")


def test_the_place_is_the_innermost_package_frame():
    with pytest.raises(ValueError) as raised:
        cli_support.fail("onnx-torch-mlir", _Unprintable())  # raises inside the package, in fail()
    message = cli_support.internal_error_message(raised.value)
    assert "(at tools/cli_support.py:" in message and " in fail)" in message


def test_no_place_when_the_error_is_outside_the_package():
    try:
        _buggy_action()
    except KeyError as error:
        assert "(at " not in cli_support.internal_error_message(error)


def test_traceback_variable_lets_the_exception_through(monkeypatch):
    monkeypatch.setenv(cli_support.TRACEBACK_VARIABLE, "1")
    with pytest.raises(KeyError):
        cli_support.run_guarded("onnx-torch-mlir", _buggy_action)
