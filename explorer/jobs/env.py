"""Who this process is in a distributed job, read from the environment torchrun gives every rank.

``torch.distributed.run`` (torchrun) starts each rank with ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``,
``LOCAL_WORLD_SIZE``, ``GROUP_RANK`` and ``TORCHELASTIC_RUN_ID`` set; ``init_process_group("env://")``
reads the same variables, so any launcher that sets ``RANK`` and ``WORLD_SIZE`` makes a rank here.
Also where each rank's part goes (``r.json`` -> ``r.rank<k>.json``). Plain Python: no torch.
"""

from __future__ import annotations

import os
import re
import socket
import time
from dataclasses import dataclass
from typing import Mapping, Optional

# set by `python -m explorer run --nproc-per-node N`: the folder its ranks write their parts to
PARTS_ENV = "COMPILE_EXPLORER_RANK_PARTS"
_PART_RE = re.compile(r"\.rank(\d+)\.json$")


@dataclass(frozen=True)
class RankEnv:
    rank: int
    world_size: int
    local_rank: Optional[int]
    local_world_size: Optional[int]
    node_rank: Optional[int]
    run_id: Optional[str]
    restart: int
    host: str
    pid: int
    started_at: float

    @property
    def job(self) -> Optional[str]:
        """What every rank of one launch shares and the next launch does not (None: unknown)."""
        return f"{self.run_id}/{self.restart}" if self.run_id and self.run_id != "none" else None


def rank_env(environ: Optional[Mapping[str, str]] = None) -> Optional[RankEnv]:
    """This process's place in a job, or None when it is not a rank (no ``RANK``/``WORLD_SIZE``)."""
    env = os.environ if environ is None else environ
    rank, world = _int(env.get("RANK")), _int(env.get("WORLD_SIZE"))
    if rank is None or world is None or not 0 <= rank < world:
        return None
    return RankEnv(rank=rank, world_size=world, local_rank=_int(env.get("LOCAL_RANK")),
                   local_world_size=_int(env.get("LOCAL_WORLD_SIZE")), node_rank=_int(env.get("GROUP_RANK")),
                   run_id=env.get("TORCHELASTIC_RUN_ID"), restart=_int(env.get("TORCHELASTIC_RESTART_COUNT")) or 0,
                   host=socket.gethostname(), pid=os.getpid(), started_at=time.time())


def part_path(report_path: str, rank: int) -> str:
    """``r.json`` (or ``r.html``) -> ``r.rank3.json``: beside the merged report, where ``explorer merge`` finds it."""
    stem, ext = os.path.splitext(report_path)
    return f"{stem if ext in ('.json', '.html') else report_path}.rank{rank}.json"


def part_in_folder(folder: str, rank: int) -> str:
    return os.path.join(folder, f"part.rank{rank}.json")


def parts_of(json_path: str) -> dict[int, str]:
    """The parts beside a merged report's path, by rank."""
    return _parts(part_path(json_path, 0)[: -len("0.json")])


def parts_in_folder(folder: str) -> dict[int, str]:
    return _parts(os.path.join(folder, "part.rank"))


def _parts(prefix: str) -> dict[int, str]:
    folder = os.path.dirname(prefix) or "."
    base = os.path.basename(prefix)
    out = {}
    try:
        names = os.listdir(folder)
    except OSError:
        return {}
    for name in names:
        if name.startswith(base):
            m = _PART_RE.search(name)
            if m and name == f"{base}{m.group(1)}.json":
                out[int(m.group(1))] = os.path.join(folder, name)
    return dict(sorted(out.items()))


def _int(text: Optional[str]) -> Optional[int]:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None
