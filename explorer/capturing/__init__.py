"""The capture layer: torch.compile's seams -> plain frozen data (``model``).

Nothing above this package touches torch internals; nothing in it renders.

  session.py    ``CaptureSession``: capture config and the recorder around user code; ``read`` -> CaptureData
  recorder.py   the one listener on torch's seams -> ``raw.RawCapture``; live subscriptions, noise counted
  decoders.py   ``DECODERS``: one decoder per event kind, raw record -> typed record (``records.py``)
  elements.py   a record's list read element by element: an odd one kept as ``?`` or left out, said in one line
  fold.py       the typed records of one compile id -> one ``Compilation``
  missing.py    which fields an unreadable record left empty
  assemble.py   decode every record, fold per compile id; what cannot be read is a Problem or an OtherArtifact,
                what is read in part a PartialRead
  parse_*.py, bytecode.py   the text parsers decoders call
  torch_door/   the one door to torch's internals: one module per torch subsystem
"""

from .compile_id import CompileId
from .model import CaptureData, Compilation, OtherArtifact, Problem, from_json, to_json
from .raw import RawEvent
from .session import CaptureSession

__all__ = ["CaptureData", "CaptureSession", "CompileId", "Compilation", "OtherArtifact", "Problem", "RawEvent",
           "from_json", "to_json"]
