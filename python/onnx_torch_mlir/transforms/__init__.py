"""The passes around the op conversion: signatures, bridging casts, the entry point."""

from .entry_point import erase_onnx_entry_point  # noqa: F401
from .function_types import convert_function_types_to_torch_types  # noqa: F401
from .type_finalization import finalize_torch_type_conversion  # noqa: F401
