"""What happened when DDP or FSDP2 left no split or no collective to see (the split itself is drawn by
``present.ddp_view``).

A split is not a graph break: Dynamo captured one graph for the frame (one set of guards), and
DDPOptimizer cut it at DDP's gradient-bucket boundaries so each bucket's all-reduce can overlap
the rest of backward. Each piece is compiled on its own. What decides the cut is DDP's
``bucket_cap_mb``; ``torch._dynamo.config.optimize_ddp = False`` keeps the graph whole.

The notes come from what the capture holds (frames and graph breaks in DDP's and FSDP2's files,
DDPOptimizer's log line, the script's exception), checked against torch 2.13 on CPU with gloo:
``torch.compile(DDP(model))`` breaks at DDP's ``_inside_ddp_forward`` and compiles the wrapped
module's forward as a frame of its own; when that forward is torch's own code (``nn.Sequential``),
Dynamo skips the frame and nothing of the model is compiled.
"""

from __future__ import annotations

from ..capturing.model import CaptureData
from ..capturing.torch_door.distributed import DDP_FILE, FSDP2_DIR
from ..clinic.locate import is_library_file

FIRST_BUCKET_ERROR = "First bucket should be smaller/equal to other buckets"


def notes(data: CaptureData) -> list[str]:
    """What DDP and FSDP2 did that the graphs alone do not show, or why nothing was split or compiled."""
    out: list[str] = []
    ddp_seen = _touches(data, DDP_FILE) or "DistributedDataParallel" in (data.error or "")
    optimized = [c for c in data.compilations if c.ddp_optimizer is not None]
    if data.error and FIRST_BUCKET_ERROR in data.error:
        out.append("DDPOptimizer refused DDP's bucket_cap_mb: it is below DDPOptimizer's first bucket (1 MiB, "
                   "torch.distributed._DEFAULT_FIRST_BUCKET_BYTES), which torch requires to be no larger than the "
                   "cap; use bucket_cap_mb >= 1, or torch._dynamo.config.optimize_ddp = False")
    elif ddp_seen and not _compiled_user_graph(data):
        out.append("DDP: nothing of the model was compiled. torch.compile(DDP(model)) breaks inside DDP's forward "
                   "(at _inside_ddp_forward) and meets the wrapped module's forward as a frame of its own; Dynamo "
                   "compiles such a frame only if it is your code, and skips torch's own modules (nn.Sequential, "
                   "nn.Linear, ...). Compile the module instead, DDP(torch.compile(model)), or give the model a "
                   "forward of your own")
    elif ddp_seen and not optimized:
        out.append("DDP: DDPOptimizer did not run on any graph: torch._dynamo.config.optimize_ddp is off (or "
                   "'python_reducer'), or the graphs ran outside DDP's forward; the graphs are not split")
    if ddp_seen and _compiled_user_graph(data):
        out.append("DDP: the graph breaks inside DDP's own forward (at _inside_ddp_forward, and its Logger) are "
                   "expected under torch.compile(DDP(model)): Dynamo runs DDP's bookkeeping as Python and compiles "
                   "the wrapped module's forward as a frame of its own, which is where DDPOptimizer works")
    if ddp_seen or optimized:
        out.append("DDP's gradient all-reduces run in its C++ reducer, outside the compiled graphs: they are not "
                   "among the collectives listed")
    if _touches(data, FSDP2_DIR) or any("FSDP" in (b.reason + (b.detail or "")) for _, b in data.graph_breaks):
        out.append("FSDP2 (fully_shard): its all-gathers and reduce-scatters run in its hooks, which torch does not "
                   "trace here (they are wrapped in torch._dynamo.disable, 'skipping FSDP hooks'): the graphs hold "
                   "each module's compute, and FSDP2's collectives are not among those listed; the graph breaks at "
                   "the hooks are expected")
    return out


def _touches(data: CaptureData, fragment: str) -> bool:
    """Whether a compiled frame or a graph break's stack passes through a file of ``fragment``."""
    for c in data.compilations:
        if fragment in c.frame.filename.replace("\\", "/"):
            return True
        brk = c.graph_break
        if brk is not None:
            files = [brk.filename] + [loc.filename for loc in brk.user_traceback]
            if any(f and fragment in f.replace("\\", "/") for f in files) or fragment in (brk.detail or ""):
                return True
    return False


def _compiled_user_graph(data: CaptureData) -> bool:
    """A graph with at least one operation, of a frame in the user's own files."""
    for c in data.compilations:
        if c.graph is None or is_library_file(c.frame.filename):
            continue
        if any(n.op not in ("placeholder", "output") for n in c.graph.nodes):
            return True
    return False
