"""A benchmark's own temporary folder: what it, torch and the processes it starts leave in the temp dir
(Inductor's caches, torch's precompiled headers of ~150 MB each, pages, notebooks) goes when it ends."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile


def own_tmp(prefix: str) -> str:
    """Points the temp dir of this process and its children at a new folder, removed at exit.
    Call it before torch is imported: torch reads the temp dir for its header folder then."""
    root = tempfile.mkdtemp(prefix=prefix)
    os.environ["TMPDIR"] = root
    tempfile.tempdir = None
    atexit.register(shutil.rmtree, root, True)
    return root
