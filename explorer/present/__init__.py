"""The one presentation layer: every text and HTML view of a Report comes from here.

``viewmodel``: the report as plain data, built once, that every view draws (panes,
labels, explanations, the fix list, timing tables). ``text``: the one-screen
summary (CLI, repr, text/plain). ``html``: the static fragment (notebook outputs
that must read without a kernel). ``page`` and ``payload``: the interactive view
(the front end's ES modules, ``frontend/src/``) as a standalone page or a widget's payload.
``escape.esc`` is the only escaper. Views read a Report; they never import torch.
Importing this package hands the report its renderers (``report.use_views``).
"""

from ..report import use_views
from . import views

use_views(views)
