"""A kernel's bytes per call as one number, for tests: ``explorer.timing.traffic`` counts them per pointer
(``kernel_traffic``, ``cpp_traffic``), and the tests compare the sum with what they work out by hand."""

from __future__ import annotations

from typing import Any, Optional

from explorer.timing.traffic import cpp_traffic, kernel_traffic


def kernel_bytes(name: str, kernel: Any, wrapper_code: Optional[str]) -> tuple[Optional[int], str]:
    """(bytes read + written per call, how it was found); bytes is None with the reason when unknown."""
    nbytes, how, _ = kernel_traffic(name, kernel, wrapper_code)
    return nbytes, how


def cpp_bytes_estimate(name: str, kernel_source: str, wrapper_code: str) -> Optional[int]:
    """Bytes a C++ kernel moves per call (see ``cpp_traffic``); None when a buffer's size is unknown."""
    traffic = cpp_traffic(name, kernel_source, wrapper_code)
    return (sum(p.bytes for p in traffic) or None) if traffic is not None else None
