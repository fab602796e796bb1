"""Dynamo's ``dynamo_side_effects`` artifact -> one ``Mutation`` per object the compiled code mutates.

torch writes one block per object, blocks split by a line of ``=``::

    Mutating object of type DynamicCache (source: created in torch.compile region)

        File "...", line 1046, in wrapper
          kwargs[arg_name] = arg_value
    ********
        File ...

The parenthesis says where the object comes from: ``source: created in torch.compile region`` and
``no source`` (made while tracing; but a global's store is ``<unknown type> (no source)``: other),
``source name: G['x'].y`` (reached from before the call), a cell's local name, or the torch-function
mode stack. Each stack's last frame is where the mutation happened.
"""

from __future__ import annotations

import re

from .inductor_code import stack_frames
from .model import Mutation, SourceLoc

_HEAD = re.compile(r"^Mutating object of type (?P<line>[^\n]*)$", re.M)
_NO_STACKS = " (unable to find user stacks for mutations)"


def parse_side_effects(text: str) -> tuple[Mutation, ...]:
    out = []
    for block in re.split(r"\n=+\n", text):
        m = _HEAD.search(block)
        if m is None:
            continue
        line = m["line"].strip()
        line = line[:-len(_NO_STACKS)].strip() if line.endswith(_NO_STACKS) else line
        type_name, _, rest = line.partition(" (")
        how = rest[:-1] if rest.endswith(")") else "no source"
        origin, source = _origin(how)
        if origin == "created" and type_name.startswith("<"):  # a global's store: Dynamo names no type, no source
            origin, source = "other", None
        stacks = re.split(r"\n\s*\*{4,}\s*\n", block[m.end():])
        locs = []
        for stack in stacks:
            frames = stack_frames(stack)
            if frames:
                f = frames[-1]
                loc = SourceLoc(f.filename, f.lineno, f.function, f.code)
                if loc not in locs:
                    locs.append(loc)
        out.append(Mutation(type_name, origin, source, tuple(locs)))
    return tuple(out)


def _origin(how: str) -> tuple[str, str | None]:
    if how == "no source" or how == "source: created in torch.compile region":
        return "created", None
    if how.startswith("source name: "):
        return "existing", how[len("source name: "):]
    if how == "source: torch function mode stack mutation":
        return "other", "the torch function mode stack"
    if how.startswith("source: "):
        return "cell", how[len("source: "):]
    return "other", how
