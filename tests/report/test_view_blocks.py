"""A protocol's row and run views are data (`core.views`); the viewer draws them (`report.viewer.blocks`).
Every string a block carries is agent-controlled somewhere, so each kind is drawn escaped; style hooks keep
only safe characters; row links point into the run and are text where pages have none."""

from __future__ import annotations

from reqbench.core.views import (
    Badge,
    Chat,
    Code,
    Columns,
    Diff,
    Facts,
    Fold,
    Group,
    Heading,
    Json,
    Message,
    Muted,
    Paragraph,
    Preformatted,
    Raster,
    RowLink,
    Status,
    Strong,
    TableBlock,
)
from reqbench.report.viewer.blocks import block_html, blocks_html, style

EVIL = "<script>x</script>"


def test_every_block_escapes_what_it_carries() -> None:
    blocks = (
        Heading(EVIL), Paragraph((EVIL, Code(EVIL), Muted(EVIL), Strong(EVIL), Badge(EVIL), Status(EVIL, EVIL))),
        Facts(((EVIL, EVIL),)), TableBlock((EVIL,), ((EVIL,), ((Code(EVIL), Preformatted(EVIL)),))),
        Fold((EVIL,), (Preformatted(EVIL),)), Diff(f"--- a\n+++ b\n@@ -1 +1 @@\n-a\n+{EVIL}\n"), Json({EVIL: EVIL}, EVIL),
        Chat((Message("user", EVIL, EVIL, ((EVIL,),)),)), Raster(((EVIL, True),), link=EVIL),
        Columns((Group((Heading(EVIL),), name=EVIL),), name=EVIL), Paragraph((RowLink(EVIL, EVIL),)))
    html = blocks_html(blocks, lambda key: "/run/r/row?key=" + key)
    assert "<script" not in html
    # each escaped EVIL, counted: heading 1, paragraph 6, facts 2, table 3, fold 2, diff 1 (pygments escapes
    # the tokens apart), json 3 (summary, key, value), chat 3, raster 2 titles x 2 (cell and link) + href 1,
    # column group heading 1, row link text 1 + href 1
    assert html.count("&lt;script&gt;x&lt;/script&gt;") == 1 + 6 + 2 + 3 + 2 + 3 + 3 + 4 + 1 + 1 + 1 + 1


def test_style_hooks_keep_only_safe_characters() -> None:
    assert style('gates" onclick="x') == "gates onclickx"
    assert block_html(Group((), name='a"><b')) == '<div class="ab"></div>'
    assert block_html(Paragraph(("x",), name="request")) == '<p class="request">x</p>'


def test_status_is_coloured_by_its_value_and_shows_its_label() -> None:
    assert block_html(Paragraph((Status("Not Covered"),))) == '<p><span class="NotCovered">Not Covered</span></p>'
    assert block_html(Paragraph((Status("done", "T1:done"),))) == '<p><span class="done">T1:done</span></p>'


def test_tables_mark_rows_and_number_cells_and_hold_blocks() -> None:
    html = block_html(TableBlock(("#", "what"), ((1, "a"), (2, (Strong("b"), Paragraph((Muted("c"),))))),
                                 name="timeline", marked=frozenset({1})))
    assert html == ('<table class="timeline"><tr><th>#</th><th>what</th></tr>'
                    '<tr><td class="num">1</td><td>a</td></tr>'
                    '<tr class="marked"><td class="num">2</td><td><b>b</b> <p><span class="meta">c</span></p></td>'
                    "</tr></table>")


def test_row_links_point_into_the_run_or_are_text() -> None:
    link = Paragraph((RowLink("row one", "t|c|a|0"),))
    assert block_html(link, lambda key: f"/run/r/row?key={key}") == '<p><a href="/run/r/row?key=t|c|a|0">row one</a></p>'
    assert block_html(link) == "<p>row one</p>"
    raster = Raster((("p1", True), ("p2", False), ("p3", None)), link="k")
    cells = block_html(raster, lambda key: f"/row?key={key}")
    assert cells.count('<a href="/row?key=k"') == 3
    assert [c in cells for c in ('class="on"', 'class="off"', 'class="na"')] == [True, True, True]
    assert "<a " not in block_html(raster)


def test_columns_and_folds() -> None:
    html = block_html(Columns((Group((Heading("L", 4),), "left"), Group((), "right")), name="delivery", wide=True))
    assert html == '<div class="two wide delivery"><div class="left"><h4>L</h4></div><div class="right"></div></div>'
    assert block_html(Fold((Strong("CP01"), Status("Covered")), (), open=True, name="point")) == (
        '<details class="point" open><summary><b>CP01</b> <span class="Covered">Covered</span></summary></details>')
