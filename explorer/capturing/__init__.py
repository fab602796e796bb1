"""The capture layer: torch.compile's seams -> plain frozen data (``model``).

Nothing above this package touches torch internals; nothing in it renders.
"""

from .compile_id import CompileId
from .model import CaptureData, Compilation, OtherArtifact, Problem, from_json, to_json
from .raw import RawEvent
from .session import CaptureSession

__all__ = ["CaptureData", "CaptureSession", "CompileId", "Compilation", "OtherArtifact", "Problem", "RawEvent",
           "from_json", "to_json"]
