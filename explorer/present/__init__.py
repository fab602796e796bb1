"""The one presentation layer: every text and HTML view of a Report comes from here.

``text``: the one-screen summary (CLI, repr, text/plain). ``html``: the static
fragment (notebook outputs that must read without a kernel) and the standalone
page. ``panes``: one HTML renderer per stage kind of ``explorer.stages``.
``escape.esc`` is the only escaper. Views read a Report; they never import torch.
"""
