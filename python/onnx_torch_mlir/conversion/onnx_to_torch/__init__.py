"""ONNX ops to torch ops: the registry, the node view, the builder and one module per op family.

Every module of this package that is not part of the framework is an op family
and is imported here, which registers its `@converts` patterns: adding a family
is adding a file (see docs/adding-an-op.md). A family imports only the framework's
`FAMILY_API` modules, never another family nor the framework's own internals
(test/python/test_framework_rules.py checks it).
"""

import importlib
import pkgutil

from .builder import TorchBuilder  # noqa: F401
from .node import OnnxNode, UnsupportedNode  # noqa: F401
from .registry import all_registrations, converts, lookup  # noqa: F401

# What a family may import: the builder, the node view, the registry, types, and formulas
# that run as numpy or as torch ops.
FAMILY_API = {"builder", "node", "padded_rows", "registry", "torch_arrays", "types"}
# The framework's internals: reading literals, the constant fold, the walk, function expansion (and its subgraphs).
FRAMEWORK_MODULES = FAMILY_API | {"constants", "driver", "folding", "function_regions", "functions", "result_inference"}

FAMILIES = tuple(
    sorted(info.name for info in pkgutil.iter_modules(__path__) if info.name not in FRAMEWORK_MODULES)
)
for _family in FAMILIES:
    importlib.import_module(f"{__name__}.{_family}")

from .driver import convert_onnx_to_torch  # noqa: E402,F401
