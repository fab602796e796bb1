"""The capture layer: torch.compile's seams -> plain frozen data (``model``).

Nothing above this package touches torch internals; nothing in it renders.
"""

from .model import CaptureData, Compilation, from_json, to_json
from .session import CaptureSession

__all__ = ["CaptureData", "CaptureSession", "Compilation", "from_json", "to_json"]
