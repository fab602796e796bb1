"""Two compilations of one frame side by side: 0/0 vs 0/1 of a size-change recompile."""

import pytest
from corpus import recompiles as prog


@pytest.fixture(scope="module")
def pair():
    import torch

    import explorer

    with explorer.capture() as report:
        shifted = torch.compile(prog.shifted, backend="eager")
        shifted(torch.randn(8), 3)
        shifted(torch.randn(16), 3)  # size 8 -> 16: the second graph has a dynamic size
    first, second = report.data.compilations[:2]
    assert second.recompile_reason
    return first, second


def test_guards_show_the_size_that_became_dynamic(pair):
    from explorer.clinic import diff_compilations

    guards = diff_compilations(*pair).section("guards")
    assert guards.changed
    removed = [r.a for r in guards.rows if r.tag in ("replace", "delete")]
    added = [r.b for r in guards.rows if r.tag in ("replace", "insert")]
    assert any("size=[8]" in line for line in removed if line)
    assert any("size=[None]" in line for line in added if line)
    unchanged = [r.a for r in guards.rows if r.tag == "equal"]
    assert any("EQUALS_MATCH" in line and "== 3" in line for line in unchanged)


def test_graphs_differ_only_where_the_shape_became_symbolic(pair):
    from explorer.clinic import diff_compilations

    graph = diff_compilations(*pair).section("graph")
    changed = [r for r in graph.rows if r.tag != "equal"]
    assert changed and all("f32[8]" in (r.a or "") for r in changed if r.a)
    assert any("Sym(" in (r.b or "") for r in changed)
    assert any(r.tag == "equal" and "# File:" in (r.a or "") for r in graph.rows)


def test_rows_line_up_both_sides(pair):
    from explorer.clinic import diff_compilations

    for section in diff_compilations(*pair).sections:
        a_numbers = [r.a_lineno for r in section.rows if r.a_lineno]
        b_numbers = [r.b_lineno for r in section.rows if r.b_lineno]
        assert a_numbers == list(range(1, len((section.a_text or "").splitlines()) + 1))
        assert b_numbers == list(range(1, len((section.b_text or "").splitlines()) + 1))


def test_to_text_is_a_unified_diff_per_section(pair):
    from explorer.clinic import diff_compilations

    text = diff_compilations(*pair).to_text()
    assert text.splitlines()[0].startswith(f"diff {pair[0].label}")
    assert f"--- {pair[0].compile_id} guards" in text and f"+++ {pair[1].compile_id} guards" in text
    assert any(ln.startswith("-") and "size=[8]" in ln for ln in text.splitlines())
    assert any(ln.startswith("+") and "size=[None]" in ln for ln in text.splitlines())
    assert "== output_code: neither compilation has one" in text  # backend="eager" lowers nothing


def test_a_compilation_against_itself_is_identical(pair):
    from explorer.clinic import diff_compilations

    same = diff_compilations(pair[0], pair[0])
    assert not any(s.changed for s in same.sections)
    assert "== guards: identical" in same.to_text()


def test_the_static_copy_draws_the_recompiles_diff_escaped_and_marked(pair):
    """The static copy draws the view model's diff (present/diff_view.py), the one the page and the widget draw."""
    from explorer.capturing.model import CaptureData
    from explorer.present.html import render_fragment

    data = CaptureData(torch_version="", device="", python_version="", compilations=pair)
    html = render_fragment(data, pictures=False)
    section = html[html.index('data-stage="diff"'):]
    assert 'class="cx-chg"' in section  # what changed inside a replaced line
    assert "][1]cpu&quot;" in section and '][1]cpu"' not in section  # the graphs' annotations, escaped
    assert "&lt;= L[&#x27;x&#x27;].size()[0]" in section
