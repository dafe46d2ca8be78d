"""The chain's error boundary, undo log, loss guard and removed-link bookkeeping."""

from copy import deepcopy

import lxml.html
import pytest
from lxml import etree

from pagesieve.engine.chain import Chain
from pagesieve.engine.context import FilterContext
from pagesieve.engine.state import RunState
from pagesieve.engine.config import SafetySettings
from pagesieve.engine.document import parse, serialize
from pagesieve.engine.output import OutputSettings
from pagesieve.filters.base import Filter

PAGE = (b"<html><head><title>T</title></head><body><div id=nav><a href='/a'>A</a> <a href='/b'>B</a></div>"
        b"<div id=art><p>" + b"word " * 200 + b"</p><p>tail text</p></div></body></html>")


class Removes(Filter):
    name = "removes"
    assigns = ("removed_links",)

    def __init__(self, xpath, then_raise=False):
        super().__init__(None)
        self.xpath, self.then_raise = xpath, then_raise

    def apply(self, page, ctx):
        for node in page.root.xpath(self.xpath):
            ctx.remove(node, "test")
        if self.then_raise:
            raise RuntimeError("boom")


class Marks(Filter):
    name = "marks"
    destructive = False
    assigns = ("article",)

    def apply(self, page, ctx):
        ctx.set_article(page.root.get_element_by_id("art"))


def run(*filters, loss=0.9):
    page = parse(PAGE)
    state, stats = Chain(list(filters), OutputSettings(), SafetySettings(max_article_loss=loss)).run(page)
    return page, state, stats


def test_a_failing_filter_leaves_the_page_as_before_it():
    before = serialize(parse(PAGE))
    page, state, stats = run(Removes("//div[@id='nav'] | //p[2]", then_raise=True))
    assert serialize(page) == before
    assert stats[0]["status"] == "error"
    assert state.record[-1]["action"] == "error" and "boom" in state.record[-1]["reason"]


def test_the_next_filter_still_runs_after_a_failure():
    page, _, stats = run(Removes("//p[2]", then_raise=True), Removes("//div[@id='nav']"))
    assert [s["status"] for s in stats] == ["error", "ok"]
    assert page.root.find(".//div[@id='nav']") is None
    assert len(page.root.findall(".//p")) == 2


def test_removing_nearly_all_article_text_is_reverted():
    page, state, stats = run(Marks(None), Removes("//div[@id='art']/p[1]"))
    assert stats[1]["status"] == "reverted"
    assert len(page.root.findall(".//p")) == 2
    revert = state.record[-1]
    assert revert["action"] == "revert" and revert["measured"]["article_text_lost"] > 0.9


def test_guard_threshold_boundary():
    # p[1] holds 800 of 808 article characters (0.990): reverted at 0.98, kept at 0.995
    _, _, stats = run(Marks(None), Removes("//div[@id='art']/p[1]"), loss=0.98)
    assert stats[1]["status"] == "reverted"
    _, _, stats = run(Marks(None), Removes("//div[@id='art']/p[1]"), loss=0.995)
    assert stats[1]["status"] == "ok"


def test_removing_outside_the_article_is_not_loss():
    page, _, stats = run(Marks(None), Removes("//div[@id='nav']"), loss=0.0)
    assert stats[1]["status"] == "ok"
    assert page.root.find(".//div[@id='nav']") is None


class ReadsRemovedLinks(Filter):
    name = "reads_removed_links"
    destructive = False
    requires = ("removed_links",)

    def apply(self, page, ctx):
        pass


def test_removed_links_are_recorded_in_page_order():
    _, state, _ = run(Removes("//a[@href='/b']"), Removes("//a[@href='/a']"), ReadsRemovedLinks(None))
    assert sorted(state.removed_links) == [(0, "/a", "A"), (1, "/b", "B")]


def test_removed_links_are_not_listed_when_no_filter_of_the_chain_reads_them():
    _, state, _ = run(Removes("//a[@href='/b']"), Removes("//a[@href='/a']"))
    assert state.removed_links == [] and not state.collect_links


def test_removed_words_count_what_was_taken_less_what_replacements_kept_and_forget_a_rollback():
    page = parse(b"<body><div id=nav>one two <script>var x</script><b>three</b></div>"
                 b"<div id=box><p>four five six</p><p>seven</p></div><noscript><p>eight nine</p></noscript>"
                 b"<select><option>menu</option></select></body>")
    state = RunState(root=page.root)
    first = FilterContext("first", state, page)
    assert first.removed_words() == 0
    first.remove(page.root.get_element_by_id("nav"), "t")  # script text is no word a reader got
    assert first.removed_words() == 3
    box = page.root.get_element_by_id("box")
    first.replace(box, deepcopy(box[0]), "t")  # "seven" went, "four five six" kept
    assert first.removed_words() == 4
    assert first.removed_words(enough=1) == 1  # replacements first, then removals until enough is known
    second = FilterContext("second", state, page)
    second.remove(page.root.find(".//noscript"), "t")  # shown once scripts are gone: words taken
    second.remove(page.root.find(".//select"), "t")  # form controls: no words read out
    assert second.removed_words() == 6
    second.rollback()
    assert second.removed_words() == first.removed_words() == 4 and len(state.removed_nodes) == 2


def test_links_removed_from_page_furniture_are_marked_and_a_rollback_forgets_them():
    page = parse(b"<body><header><div id=menu><a href=/home>Home</a></div></header>"
                 b"<article><header><a href=/byline>By Ann</a></header><p>Story</p></article>"
                 b"<div id=box><div role=navigation><a href=/tags>Tags</a></div><a href=/more>More</a></div></body>")
    for output_format, marked in (("text", {"/home", "/tags"}), ("html", set())):  # only the text list asks
        state = RunState(root=page.root, output_format=output_format)
        ctx = FilterContext("t", state, page)
        for node in (page.root.get_element_by_id("menu"), page.root.find(".//article/header"),
                     page.root.get_element_by_id("box")):
            ctx.remove(node, "t")
        furniture = {href for position, href, _ in state.removed_links if position in state.removed_in_furniture}
        # the banner's menu (by an ancestor), a role=navigation inside the removed block; not an article's header
        assert furniture == marked and len(state.removed_links) == 4
        ctx.rollback()
        assert state.removed_links == [] and state.removed_in_furniture == set()


def test_links_in_a_template_are_not_recorded_as_removed():
    page = parse(b"<body><div id=nav><a href=/shown>Shown</a><template><a href=/inert>Inert</a></template></div>"
                 b"<template id=t><div><a href=/deep>Deep</a></div></template></body>")
    state = RunState(root=page.root)
    ctx = FilterContext("t", state, page)
    ctx.remove(page.root.get_element_by_id("t")[0], "t")  # inside a template: the removal of inert markup
    ctx.remove(page.root.get_element_by_id("nav"), "t")
    assert [href for _, href, _ in state.removed_links] == ["/shown"]


def test_tail_text_survives_removal_and_rollback_restores_it():
    page = parse(b"<body><p>a<b>x</b>tail<i>y</i>more</p></body>")
    ctx = FilterContext("t", RunState(root=page.root), page)
    p = page.root.find(".//p")
    ctx.remove(p.find("b"), "t")
    assert etree.tostring(p) == b"<p>atail<i>y</i>more</p>"
    ctx.remove(p.find("i"), "t")
    assert etree.tostring(p) == b"<p>atailmore</p>"
    ctx.rollback()
    assert etree.tostring(p) == b"<p>a<b>x</b>tail<i>y</i>more</p>"


def test_rollback_of_attributes_replacements_and_checkpoints():
    page = parse(b"<body><div style='x' id=d><p>one</p></div><span>s</span></body>")
    ctx = FilterContext("t", RunState(root=page.root), page)
    before = serialize(parse(b"<body><div style='x' id=d><p>one</p></div><span>s</span></body>"))
    div = page.root.get_element_by_id("d")
    ctx.set_attr(div, "style", None)
    ctx.set_attr(div, "hidden", "")
    live = ctx.checkpoint(div)
    live.find("p").text = "changed"
    assert page.root.find(".//p").text == "changed"
    new = etree.Element("em")
    ctx.replace(page.root.find(".//span"), new, "t")
    ctx.rollback()
    assert serialize(page) == before


def test_nodes_inside_removed_subtrees_are_not_removed_twice():
    page = parse(b"<body><div><p>x</p></div></body>")
    ctx = FilterContext("t", RunState(root=page.root), page)
    p = page.root.find(".//p")
    assert ctx.remove(page.root.find(".//div"), "t")
    assert not ctx.remove(p, "t")
    assert ctx.removed == 1



def test_removing_comments_inside_the_article_is_fine():
    """Comments are nodes too; removing one must not trip the article-loss guard."""
    global PAGE
    saved, PAGE = PAGE, PAGE.replace(b"<p>tail text", b"<!-- note --><p>tail text")
    try:
        page, _, stats = run(Marks(None), Removes("//comment()"))
    finally:
        PAGE = saved
    assert stats[1]["status"] == "ok" and stats[1]["removed"] == 1
    assert not page.root.xpath("//comment()")


# -- hostile pages ------------------------------------------------------
class SetsAttributesThenRaises(Filter):
    name = "attrs"

    def apply(self, page, ctx):
        for node in page.root.iter("div"):
            ctx.set_attr(node, "style", None)
            ctx.set_attr(node, "data-x", "1")
        raise RuntimeError("boom")


def test_undoing_a_filter_on_elements_with_odd_attribute_names():
    """An attribute named {{ng-model}} (kept from the parse; lxml refuses to set such names) made
    the undo raise and escape the chain."""
    html = b"<html><body><div {{ng-model}}=a style='color:red' id=d>" + b"word " * 50 + b"</div></body></html>"
    page = parse(html)
    before = serialize(page)
    Chain([SetsAttributesThenRaises(None)], OutputSettings(), SafetySettings()).run(page)
    assert serialize(page) == before


class BreaksItsOwnUndo(Filter):
    name = "breaks_undo"

    def apply(self, page, ctx):
        p = page.root.find(".//p")
        ctx.remove(p, "test")
        ctx._ops.append(("text", None, False, "x"))  # an undo step that cannot be carried out
        raise RuntimeError("boom")


def test_an_undo_that_fails_fails_the_page_with_a_pagesieve_error():
    import pytest

    from pagesieve.core.errors import FilterError

    chain = Chain([BreaksItsOwnUndo(None)], OutputSettings(), SafetySettings())
    with pytest.raises(FilterError, match="breaks_undo failed .* could not be undone"):
        chain.process(PAGE)


def test_a_failure_traceback_is_logged_once_across_chains(caplog, monkeypatch):
    import pagesieve.engine.chain

    monkeypatch.setattr(pagesieve.engine.chain, "_logged_failures", {})
    for _ in range(3):  # the proxy builds a chain per page
        Chain([Removes("//div[@id='nav']", then_raise=True)], OutputSettings(), SafetySettings()).process(PAGE)
    failures = [r for r in caplog.records if "filter removes failed" in r.getMessage()]
    assert len(failures) == 3
    assert [bool(r.exc_info) for r in failures] == [True, False, False]


# -- order contracts and hand-off fields ----------------------------------------------------------

class NeedsArticle(Filter):
    name = "judge"
    requires = ("article",)

    def apply(self, page, ctx):
        pass


def test_a_chain_is_checked_when_built():
    from pagesieve.core.errors import ConfigError

    with pytest.raises(ConfigError, match=r"^chain = \['judge', 'marks'\]: filter judge needs article"):
        Chain([NeedsArticle(None), Marks(None)], OutputSettings(), SafetySettings())
    Chain([Marks(None), NeedsArticle(None)], OutputSettings(), SafetySettings())
    Chain([NeedsArticle(None)], OutputSettings(), SafetySettings(), check=False)  # on purpose


def test_a_filter_assigns_only_what_it_declares_and_assignments_are_undone():
    class Sneaky(Filter):
        name = "sneaky"

        def apply(self, page, ctx):
            ctx.set_article(page.root.get_element_by_id("art"))

    page, state, stats = run(Sneaky(None))
    assert stats[0]["status"] == "error" and "does not declare it" in state.record[-1]["reason"]

    class AssignsThenRaises(Filter):
        name = "raises"
        assigns = ("article", "segments")

        def apply(self, page, ctx):
            ctx.assign(article=page.root.get_element_by_id("art"), segments=[{"segment": 1}])
            raise RuntimeError("boom")

    page, state, stats = run(AssignsThenRaises(None))
    assert stats[0]["status"] == "error" and state.article is None and state.segments == []


KEEP_PAGE = (b"<html><head><title>t</title></head><body>lead <div id=w>in w <p id=a>A <a href=/x>x</a></p>"
             b" tail-a <!-- c --><p id=b>B</p>\n<p id=c>C <a href=/y>y</a></p> tail-c</div> end "
             b"<div id=o>O <a href=/z>z</a></div>\n</body></html>")


def _keep(nodes, **kw):
    page = parse(KEEP_PAGE)
    state = RunState(root=page.root)
    ctx = FilterContext("keep", state, page)
    by = page.root.get_element_by_id
    n = ctx.keep_only(page.body, [by(i) for i in nodes], reason="outside", **kw)
    return page, state, ctx, n


def test_keep_only_removes_everything_else_explained_and_undoable():
    before = serialize(parse(KEEP_PAGE))
    page, state, ctx, n = _keep(["a", "c"])
    body = lxml.html.tostring(page.body, encoding="unicode")
    assert body == ('<body><div id="w"><p id="a">A <a href="/x">x</a></p><!-- c -->\n'
                    '<p id="c">C <a href="/y">y</a></p></div>\n</body>')
    assert n == 2 and [r["node"] for r in state.record] == ["div#o", "p#b"]  # outer level first
    assert sorted(h for _, h, _ in state.removed_links) == ["/z"]  # kept links are not "removed"
    ctx.rollback()
    assert serialize(page) == before


def test_keep_only_options():
    # comments: the comment goes too; blank_after: text runs that met are cleared whole.
    page, _, _, _ = _keep(["a", "c"], comments=True, blank_after=True)
    assert lxml.html.tostring(page.body, encoding="unicode") == (
        '<body><div id="w"><p id="a">A <a href="/x">x</a></p><p id="c">C <a href="/y">y</a></p></div></body>')
    # kept text pieces stay, and spared children too; the body itself kept: nothing to do.
    page, state, _, _ = _keep(["a"], spare=lambda el: el.get("id") == "o")
    assert page.root.get_element_by_id("o") is not None and page.root.get_element_by_id("b", None) is None
    page = parse(KEEP_PAGE)
    ctx = FilterContext("keep", RunState(root=page.root), page)
    p_a = page.root.get_element_by_id("a")
    ctx.keep_only(page.body, [p_a.find("a")], texts=[(p_a, False)], reason="outside")
    assert lxml.html.tostring(p_a, encoding="unicode").startswith('<p id="a">A <a href="/x">x</a></p>')
    assert ctx.keep_only(page.body, [page.body], reason="outside") == 0


def _checkpoint_walk_of_every_node(state: RunState, node, live) -> None:
    """The mapping checkpoint made before it mapped only links and the hand-off nodes (reference)."""
    order = state._link_order
    for old, new in zip(node.iter(), live.iter()):
        if old is state.article:
            state.article = new
        if old is state.removed_links_nav:
            state.removed_links_nav = new
        if order is not None and old.tag == "a" and old in order:
            order[new] = order[old]


CHECKPOINT_PAGE = (b"<html><body><!-- c --><div id=top><a href='/0'>0</a><!-- c --><div id=mid>x<a>1</a>"
                   b"<section id=art><p>t<a href='/2'>2</a><!-- c --><b>b</b></p><a href='/3'>3</a></section>"
                   b"</div><nav id=nav><a href='/4'>4</a></nav></div><p id=out><a href='/5'>5</a></p></body></html>")


@pytest.mark.parametrize("article", ["art", "mid", "top", "out", None])
@pytest.mark.parametrize("nav", ["nav", "top", "out", None])
@pytest.mark.parametrize("target", ["top", "mid", "art"])
@pytest.mark.parametrize("ordered", [True, False])
def test_checkpoint_maps_links_and_handoffs_as_the_walk_of_every_node_did(article, nav, target, ordered):
    results = []
    for reference in (False, True):
        page = parse(CHECKPOINT_PAGE)
        state = RunState(root=page.root)
        by_id = page.root.get_element_by_id
        state.article = by_id(article) if article else None
        state.removed_links_nav = by_id(nav) if nav else None
        if ordered:
            state.link_position(page.root.find(".//a"))  # the link order is taken
        node = by_id(target)
        ctx = FilterContext("t", state, page)
        if reference:  # the old checkpoint: its mapping, then the same replacement
            live = deepcopy(node)
            live.tail = node.tail
            _checkpoint_walk_of_every_node(state, node, live)
            node.getparent().replace(node, live)
        else:
            live = ctx.checkpoint(node)
        assert live.getparent() is not None
        path = page.root.getroottree().getpath
        results.append((
            path(state.article) if state.article is not None else None,
            state.article is not None and any(a is page.root for a in state.article.iterancestors()),
            path(state.removed_links_nav) if state.removed_links_nav is not None else None,
            state.removed_links_nav is not None and any(a is page.root for a in state.removed_links_nav.iterancestors()),
            sorted((path(a), i) for a, i in (state._link_order or {}).items() if a.getroottree().getroot() is page.root),
        ))
    assert results[0] == results[1]


class Secures(Removes):
    """A filter with a secure step (removing <script>) and an apply step that may fail or take too much."""

    name = "secures"
    assigns = ("removed_links", "content_security_policy")
    secures = True

    def __init__(self, xpath, then_raise=False, secure_raises=False):
        super().__init__(xpath, then_raise)
        self.secure_raises = secure_raises

    def secure(self, page, ctx):
        for node in page.root.iter("script"):
            ctx.remove(node, "script", guarded=False)
        ctx.set_content_security_policy("script-src 'none'")
        if self.secure_raises:
            raise RuntimeError("secure boom")


SCRIPTED = PAGE.replace(b"</body>", b"<script>alert(1)</script></body>")


@pytest.mark.parametrize("apply_xpath, then_raise, status", [
    ("//div[@id='art']/p[1]", False, "reverted"),  # the loss guard undoes apply ...
    ("//div[@id='nav']", True, "error"),  # ... and so does a failure of apply
    ("//div[@id='nav']", False, "ok"),
])
def test_a_secure_step_is_never_undone(apply_xpath, then_raise, status):
    page = parse(SCRIPTED)
    state, stats = Chain([Marks(None), Secures(apply_xpath, then_raise)], OutputSettings(),
                         SafetySettings(max_article_loss=0.9)).run(page)
    assert stats[1]["status"] == status
    assert page.root.find(".//script") is None and state.content_security_policy == "script-src 'none'"
    assert (page.root.find(".//div[@id='nav']") is None) == (status == "ok")


def test_a_failing_secure_step_fails_the_page():
    from pagesieve.core.errors import FilterError

    with pytest.raises(FilterError, match="could not take out what would run script: RuntimeError: secure boom"):
        Chain([Secures("//nothing", secure_raises=True)], OutputSettings(), SafetySettings()).run(parse(SCRIPTED))


def test_an_attribute_lxml_cannot_name_is_deleted_with_its_like_only():
    page = parse(b'<p><i {x="javascript:a" a=1 {y=2 b=3>x</i></p>')
    i = page.root.find(".//i")
    ctx = FilterContext("t", RunState(root=page.root), page)
    ctx.set_attr(i, "{x", None)
    assert i.items() == [("a", "1"), ("b", "3")]
    with pytest.raises(ValueError):
        ctx.set_attr(i, "{z", "v")  # cannot be set: refused, as lxml refuses it


@pytest.mark.parametrize("page, charset, before, after", [
    # After the skip link that opens the body (the accessibility filter's), before what follows it.
    ("<p>Text of the page, long enough.</p>", "utf-8", b'Skip to main content</a>', b"<main"),
    # A legacy charset: the offset is in the page's bytes, not in characters.
    ("<p>Caf\u00e9 cr\u00e8me, na\u00efve fa\u00e7ade.</p>", "windows-1252", b'Skip to main content</a>', b"<main"),
    # A comment that looks like the mark does not move the slot (the mark's name is random).
    ("<!--pagesieve-slot-0000000000000000--><p>Text of the page, long enough.</p>", "utf-8",
     b'Skip to main content</a>', b"<!--pagesieve-slot-0000000000000000--><main"),
])
def test_the_slot_is_right_after_the_skip_link(page, charset, before, after):
    from pagesieve.api import Filterer

    html = f"<html><head><meta charset={charset}><title>T</title></head><body>{page}</body></html>".encode(charset)
    plain = Filterer().process(html)
    result = Filterer().process(html, slot=True)
    assert result.body == plain.body  # asking for the slot changes nothing in the page
    assert result.slot is not None and plain.slot is None
    assert result.body[:result.slot].endswith(before) and result.body[result.slot:].startswith(after)


def test_without_a_skip_link_the_slot_opens_the_body_and_text_output_has_none():
    from pagesieve.api import Filterer

    html = b"<html><body>Lead text<p>Text of the page, long enough.</p></body></html>"
    result = Filterer(settings={"filters.accessibility.skip_link": False}).process(html, slot=True)
    assert result.body[:result.slot].endswith(b"<body>")
    assert Filterer(output="text").process(html, slot=True).slot is None


# -- the explanation record only when asked for ------------------------------------------------
class Noting(Filter):
    """Notes a summary, removes the nav with a detail measured for the record only (keep_only), then fails."""

    name = "noting"
    assigns = ("removed_links",)

    def __init__(self, fail=False):
        super().__init__(None)
        self.fail, self.measured = fail, 0

    def measure(self, node):
        self.measured += 1
        return {"tag": node.tag}

    def apply(self, page, ctx):
        ctx.note("summary", reason="looked")
        body = page.root.find("body")
        ctx.keep_only(body, [body.find("div[@id='art']")], reason="not the article", measured=self.measure)
        if self.fail:
            raise RuntimeError("boom")


@pytest.mark.parametrize("explain, actions", [
    (True, ["summary", "remove"]),
    (False, []),
    (frozenset({"remove", "error"}), ["remove"]),
    (frozenset({"summary"}), ["summary"]),
])
def test_the_record_holds_what_was_asked_for_and_the_page_is_the_same(explain, actions):
    flt = Noting()
    result = Chain([flt], OutputSettings(), SafetySettings()).process(PAGE, explain=explain)
    assert [e["action"] for e in result.record] == actions
    assert result.body == Chain([Noting()], OutputSettings(), SafetySettings()).process(PAGE).body
    assert b"href='/a'" not in result.body and b"href=\"/a\"" not in result.body and b"tail text" in result.body
    assert result.filters[0]["removed"] == 1
    assert flt.measured == (1 if "remove" in actions else 0)  # details only for an entry that is kept


def test_a_failure_is_in_the_stats_whatever_the_record_holds():
    page = parse(PAGE)
    state, stats = Chain([Noting(fail=True)], OutputSettings(), SafetySettings()).run(page, explain=False)
    assert stats[0]["status"] == "error" and state.record == []
    assert page.root.find(".//div[@id='nav']") is not None  # undone all the same
    state, _ = Chain([Noting(fail=True)], OutputSettings(), SafetySettings()).run(parse(PAGE), explain={"error"})
    assert [e["action"] for e in state.record] == ["error"]


def test_explain_must_be_a_flag_or_actions():
    with pytest.raises(TypeError, match="expected True, False or a collection of actions"):
        Chain([Noting()], OutputSettings(), SafetySettings()).process(PAGE, explain="remove")


@pytest.mark.parametrize("control", [True, False])
def test_the_proxy_records_the_removals_only_for_the_page_control(control):
    from pagesieve.engine import config as C
    from pagesieve.proxy_addons.worker import Job, filter_page

    html = (b"<html><body><div id=nav><ul>" + b"".join(b"<li><a href='/%d'>Section %d</a></li>" % (i, i)
                                                       for i in range(12))
            + b"</ul></div><div id=art><p>" + b"Some words of the story. " * 60 + b"</p></div></body></html>")
    job = Job(spec_key=f"declutter-{control}", spec=C.load().resolve("declutter"), body=html,
              url="http://example.org/", charset=None, host=None, timeout=30.0, explain=control)
    outcome = filter_page(job)
    assert outcome.reason is None or outcome.reason == "", outcome
    assert b"Section 3" not in outcome.body.split(b"<nav")[0]
    if control:
        assert outcome.removals and all(r["action"] in ("remove", "replace", "error", "revert")
                                        for r in outcome.removals)
        assert any(r["filter"] == "link_lists" for r in outcome.removals)
    else:
        assert outcome.removals == ()
