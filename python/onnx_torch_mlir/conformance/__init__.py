"""The conformance suite: ONNX's cases compiled, run on the reference runner and compared."""

from .cases import SUITES, CasePayload, collect_cases  # noqa: F401
from .configurations import CONFIGURATIONS, Configuration  # noqa: F401
from .pool import run_cases  # noqa: F401
from .worker import CaseResult, run_case  # noqa: F401
