"""Ids cross the JSON typed: nothing above the capture splits a compound string back into its parts.

A compilation is named by one key that only ``capturing/compile_id.py`` reads back (``Compilation.cid``);
the other compound forms this project once wrote and split by hand (``FILE:LINE`` origins, ``CID|KEY`` diff
targets, ``kernel:REF`` pane keys, ``frame@file:line#n`` matched keys) are objects. These checks read the
sources, Python and the front end's, for the ways those strings were built and taken apart.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "explorer"
FRONTEND = ROOT / "present" / "frontend" / "src"
# what reads a report's older schema back: the one place an old string form is taken apart
UPGRADE = {ROOT / "upgrade.py"}


def _python_above_capture():
    return [p for p in ROOT.rglob("*.py") if "capturing" not in p.relative_to(ROOT).parts and p not in UPGRADE]


def _hits(files, patterns):
    found = []
    for path in files:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for pattern in patterns:
                if re.search(pattern, line):
                    found.append(f"{path.relative_to(ROOT.parent)}:{n}: {line.strip()}")
    return found


@pytest.mark.parametrize("what, patterns", [
    ("a compile id read back into its parts", [r"CompileId\.(parse|key_of)\(", r"(?<![\w.])sort_key\("]),
    ("a FILE:LINE origin split", [r'rpartition\(":"\)', r'rsplit\(":"', r"origin_sort_key"]),
    ("a diff target written as CID|KEY or @RANK:CID|KEY", [r"\brank_target\(", r'f"@\{', r'\}\|graph"']),
    ("a kernel:REF pane key", [r"KERNEL_PREFIX", r'"kernel:"', r'f"kernel:']),
    ("a frame@file:line#n matched key split", [r'split\("#"', r'partition\("#"\)']),
])
def test_nothing_above_the_capture_splits_an_id(what, patterns):
    hits = _hits(_python_above_capture(), patterns)
    assert not hits, f"{what} above explorer/capturing/:\n" + "\n".join(hits)


@pytest.mark.parametrize("what, patterns", [
    ("a FILE:LINE origin split", [r'lastIndexOf\(":"\)', r"splitOrigin"]),
    ("a CID|KEY or @RANK:CID|KEY diff target split", [r'indexOf\("\|"\)', r'split\("\|"\)', r"\bparseTarget\b",
                                                      r"\brankTarget\b"]),
    ("a kernel:REF pane key, or a STAGE:PART block key split", [r"KERNEL_PREFIX", r'"kernel:"', r'split\(":"\)',
                                                                r"key\.slice\("]),
])
def test_the_front_end_splits_no_id(what, patterns):
    hits = _hits(sorted(FRONTEND.glob("*.js")), patterns)
    assert not hits, f"{what} in the front end:\n" + "\n".join(hits)


def test_a_matched_compilation_is_named_from_its_parts_and_never_read_back():
    """Ranks match a compilation by its frame and how many times that frame compiled before: the parts are
    fields, the key (``step@train.py:10#1``) only a name other parts refer to it by."""
    from explorer.capturing.model import Compilation, Frame
    from explorer.distributed.compare import compilation_keys
    from explorer.distributed.model import MatchedCompilation, MatchKey

    step, loss = Frame("step", "/job/train.py", 10), Frame("loss", "/job/train.py", 30)
    keys = compilation_keys([Compilation(k, f, "ok") for k, f in (("0/0", step), ("1/0", loss), ("0/1", step))])
    assert keys == [MatchKey("step", "/job/train.py", 10, 0), MatchKey("loss", "/job/train.py", 30, 0),
                    MatchKey("step", "/job/train.py", 10, 1)]
    assert (keys[2].text, keys[2].site) == ("step@train.py:10#1", "step@train.py:10")
    m = MatchedCompilation(keys[2].text, "step", "/job/train.py", 10, 1)
    assert m.match == keys[2]
