"""The model's structure: which module each node, guard and kernel launch came from, and which modules repeat.

A real model is a stack of identical blocks (``self.layers = nn.ModuleList(Block() for _ in range(80))``), and
every stage of torch.compile repeats them: 80 copies of one block's nodes in each graph, of its guards, of its
kernel launches. Reading the module of each item out of torch's own records (``assign``: Dynamo's names for
parameters, the user lines torch writes on each node, the guards' sources) lets the views group items by module
and fold identical members to one entry ("80× Block (layers.0–79)"), calling out the members that differ and
how (``fold``). Stored per compilation in ``Report.structure``.

Sits on the capture model: pure functions, no torch.
"""

from .build import compilation_structure, structure_of
from .model import Launch, MemberGroup, Repeat, StageModules, Structure

__all__ = ["Launch", "MemberGroup", "Repeat", "StageModules", "Structure", "compilation_structure", "structure_of"]
