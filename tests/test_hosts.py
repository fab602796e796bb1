"""Which notebook host runs the code (explorer/hosts.py), and how its cells are named.

The hosts themselves are driven in a browser by test_browser_hosts.py (marimo, Notebook 7, nbconvert) and
test_browser.py (JupyterLab); here, what can be told without one: a script is no host, and marimo's cell files
are named as the notebook names its cells.
"""

from pathlib import Path
from types import SimpleNamespace

import pytest

from explorer import hosts
from explorer.clinic.recompiles import GuardFailure

NOTEBOOK = Path(__file__).resolve().parent / "programs" / "marimo_view.py"  # cells: setup, sin_twice, then 3 unnamed


def test_a_script_is_no_host_and_shows_text(capsys, module_report):
    import explorer

    assert hosts.name() is None and not hosts.widgets_live() and not hosts.display("x")
    explorer.show(module_report)
    assert capsys.readouterr().out.startswith(module_report.summary()[:40])


@pytest.fixture
def in_marimo(monkeypatch):
    """A marimo kernel running tests/programs/marimo_view.py: its ids are the file's (Hbol, MJUe, vblA, ...), and
    a cell made in the editor since (ZZZZ) is known to the kernel only."""
    pytest.importorskip("marimo", reason="marimo is not installed (it comes with the test extra)")
    kernel = SimpleNamespace(cell_metadata={"Hbol": 0, "MJUe": 0, "vblA": 0, "bkHC": 0, "lEQa": 0, "ZZZZ": 0})
    monkeypatch.setattr(hosts, "_marimo_context", lambda: SimpleNamespace(filename=str(NOTEBOOK), _kernel=kernel))


def test_marimo_cells_are_named_by_their_name_else_their_place(in_marimo):
    cell = "/tmp/marimo_4242/__marimo__cell_{}_.py".format
    assert hosts.cell_name(cell("MJUe")) == "cell sin_twice"
    assert hosts.cell_name(cell("vblA")) == "cell 3"  # unnamed (def _): its place in the notebook
    assert hosts.cell_name(cell("ZZZZ")) == "cell 6"  # not in the file yet: its place among the kernel's cells
    assert hosts.cell_name(cell("Qwer")) == "cell Qwer"
    assert hosts.cell_name(str(NOTEBOOK)) is None  # `marimo run` compiles under the notebook's own file: a file


def test_recompiles_name_the_cell_the_guard_came_from():
    failure = GuardFailure(against="0/0", text="size", kind="size", filename="/tmp/m/__marimo__cell_MJUe_.py", lineno=2,
                           source="y = torch.sin(x)")
    assert failure.guard_where({"/tmp/m/__marimo__cell_MJUe_.py": "cell sin_twice"}) \
        == "cell sin_twice, line 2 `y = torch.sin(x)`"
    assert failure.guard_line == failure.guard_where() == "__marimo__cell_MJUe_.py:2 `y = torch.sin(x)`"


@pytest.mark.parametrize(("allow_stdin", "headless"), [(True, False), (False, True), (None, False)])
def test_a_kernel_run_by_a_client_that_takes_no_input_is_headless(monkeypatch, allow_stdin, headless):
    """nbclient (``jupyter nbconvert --execute``, papermill) sends its execute requests with ``allow_stdin`` false;
    JupyterLab, Notebook 7, VS Code and Colab with it true. Outside an execute request nothing is headless."""
    import IPython

    request = {"header": {"msg_type": "execute_request"}, "content": {"code": "", "allow_stdin": allow_stdin}}
    if allow_stdin is None:
        request = {"header": {"msg_type": "comm_msg"}, "content": {}}
    kernel = SimpleNamespace(get_parent=lambda channel=None: request)
    monkeypatch.setattr(IPython, "get_ipython", lambda: SimpleNamespace(kernel=kernel))
    monkeypatch.setattr(hosts, "name", lambda: hosts.JUPYTER)
    assert hosts.headless() is headless
    monkeypatch.setattr(hosts, "name", lambda: None)  # a script: never
    assert hosts.headless() is False

