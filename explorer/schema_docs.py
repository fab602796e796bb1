"""Two keys' descriptions that wait for issue 42 part 4, which changes their fields.

Every other key of the report says what it means in the string right under its field, and every object in its
class docstring (``explorer/schema.py`` reads them). ``FxGraph.dot`` and ``MemberGroup.diff`` are being replaced
by data (the report stores graphs and differences, the views draw them): when that lands, the new fields get their
strings under them and this module goes.
"""

from __future__ import annotations

PENDING = {
    "FxGraph.dot": "The graph in Graphviz's language, for the picture; `null` for a graph of more than 400 nodes, "
                   "whose picture is drawn folded by module from `nodes`.",
    "MemberGroup.diff": "How these members differ from the first group: unified-diff lines of the two listings, "
                        "each member's own names written away (empty for the first group).",
}
