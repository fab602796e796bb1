"""A notebook cell as one function Dynamo can compile, run so that it ends as a plain run would.

torch.compile compiles functions, but a cell is module-level code. The cell's top-level
statements become the body of a function that acts on the user's namespace exactly as a
plain run would; ``run_cell`` calls the compiled function with everything a plain outcome
needs around the call, and what torch.compile did differently comes back as findings
(``capturing.model.Finding``), not as a changed outcome.

  function.py       ``build_cell_function``: the cell as a function under its own file name (``CellFunction``)
  rewrite.py        module semantics inside a function: the statements rewritten where the two differ
  bound.py          which names the cell may read before binding them (those get no placeholder)
  run.py            ``run_cell`` / ``rerun``: the config, recursion headroom and clean-up around the call
  watch.py          ``Watch``: Dynamo's records while the cell runs (a subscriber of the one listener,
                    ``capturing.recorder``), turned into findings and live duties
  name_windows.py   placeholders for the cell's names while Dynamo compiles; Dynamo's helper globals
"""

from .function import CELL_FUNCTION_NAME, TORCH_MARKER, CellFunction, build_cell_function, register_source
from .run import CellRun, rerun, run_cell

__all__ = ["CELL_FUNCTION_NAME", "TORCH_MARKER", "CellFunction", "CellRun", "build_cell_function", "register_source",
           "rerun", "run_cell"]
