"""The line-level chain: which user line each line of every stage came from.

For each compilation, every line of every stage's text *as the views show it*
(a source line, a bytecode listing row, an FX graph line, a loop-IR line, a
wrapper or kernel line) is linked to the user lines (``Origin(file, line)``) it came
from. A line whose origins are empty came from no user line: glue (guards,
Dynamo's bookkeeping bytecode, graph inputs, wrapper allocations of inputs,
imports). Views colour lines of the same origin alike and light the whole chain
when one line is hovered or clicked; other tools read the same mapping from the
report's JSON (``lineage``). README.md, "Line-level chain", says how each stage
is mapped and which parts are torch's own data and which are inferred.

Stored compactly (a 2,300-node graph has ~90,000 lines across its stages; one
object per line would be 18 MB of JSON): per compilation, the user lines once
(``origins``), the distinct sets of them (``sets``, as indices into
``origins``; ``sets[0]`` is the empty set), and per text the lines' sets
run-length coded and the lines that define something. ``Lineage.links`` gives
the same as one ``LineLink`` per line.

Sits on the capture model: pure functions, no torch.
"""

from .build import lineage_of
from .inductor import IrNode, ir_nodes
from .model import SOURCES, Lineage, LineLink, Origin, TextLines

__all__ = ["SOURCES", "IrNode", "LineLink", "Lineage", "Origin", "TextLines", "ir_nodes", "lineage_of"]
