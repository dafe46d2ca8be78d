"""Pages their scripts make (app shells), recognised from the HTML; served as sent by the chain."""

import pytest
from lxml import etree

import pagesieve
from pagesieve.analysis import appshell
from pagesieve.core.errors import InputError, NeedsScripts
from pagesieve.engine.document import parse

BUNDLE = '<script src="/static/js/main.3f2a.js"></script>'
ARTICLE = "The river rose overnight and the town woke to water in its streets. " * 6  # 400+ characters


def page(body: str, head: str = "<title>App</title>") -> str:
    return f"<!doctype html><html><head>{head}</head><body>{body}</body></html>"


def judge(html: str):
    return appshell.judge(parse(html.encode()).root)


@pytest.mark.parametrize("html, shell", [
    # create-react-app: an empty #root, the notice, the bundle
    (page(f'<noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div>{BUNDLE}'), True),
    # Next.js rendered in the browser: an empty #__next and the page's data as JSON
    (page('<div id="__next"></div><script id="__NEXT_DATA__" type="application/json">{"props": {"story": "'
          + "x" * 3000 + '"}}</script>' + BUNDLE), True),
    # Angular: its component element, empty
    (page(f"<app-root></app-root>{BUNDLE}"), True),
    # Vue: #app with a loading word
    (page(f'<div id="app">Loading…</div>{BUNDLE}'), True),
    (page(f'<div id="app"><span class="spinner"></span></div>{BUNDLE}'), True),
    # very little text and a page's worth of inline script
    (page("<div class=x>Menu</div><script>" + "var a=1;" * 2500 + "</script>"), True),
    (page("<div class=x>Menu</div><script>" + "var a=1;" * 2400 + "</script>"), False),  # 19,200 characters
    # server-rendered and hydrated: its text is in the HTML
    (page(f'<div id="root"><article><h1>Flood</h1><p>{ARTICLE}</p></article></div>{BUNDLE}'), False),
    (page(f'<div id="__next"><p>{ARTICLE}</p></div><script id="__NEXT_DATA__" type="application/json">'
          + '{"x": "' + "y" * 3000 + '"}</script>'), False),
    # no script: what it shows is the page (a short page, an image page)
    (page('<div id="root"></div><p>Short note.</p>'), False),
    (page('<img src="/photo.jpg" alt="A photo">'), False),
    # a short page with an ordinary script and no signal
    (page("<p>Thanks, your message was sent.</p><script>track()</script>"), False),
])
def test_app_shells(html, shell):
    assert judge(html).shell is shell


@pytest.mark.parametrize("chars, shell", [(appshell.SHELL_MAX_CHARS - 1, True), (appshell.SHELL_MAX_CHARS, False)])
def test_text_threshold(chars, shell):
    assert judge(page(f'<div id="root"></div><p>{"w" * chars}</p>{BUNDLE}')).shell is shell


SHELL = page(f'<noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div>{BUNDLE}')


def test_the_chain_serves_a_shell_as_sent():
    with pytest.raises(NeedsScripts, match=r"made by its scripts \(\d+ characters of text and a mount point"):
        pagesieve.filter_html(SHELL)
    assert issubclass(NeedsScripts, InputError) and NeedsScripts.reason == "needs-scripts"


@pytest.mark.parametrize("settings", [{"filters.ignore.app_shells": False}, {"filters.ignore.scripts": False}])
def test_filtered_when_switched_off_or_when_scripts_stay(settings):
    out = pagesieve.filter_html(SHELL, settings=settings)
    assert 'id="root"' in out


def test_a_hydrated_page_is_filtered():
    out = pagesieve.filter_html(page(f'<div id="root"><p>{ARTICLE}</p></div>{BUNDLE}'))
    assert "The river rose overnight" in out and "main.3f2a.js" not in out


#: The definition shown_text keeps to: every text node under the body but those inside a script, a style
#: or a template at any depth (the query it replaced, which walked up from every node).
_SHOWN = etree.XPath(".//text()[not(ancestor::script or ancestor::style or ancestor::template)]", smart_strings=False)


@pytest.mark.parametrize("body", [
    "<p>one <b>two</b> three</p><script>var x</script>after<style>p{}</style>tail",
    # a template the parser fills with elements: read node by node, the template's subtree skipped whole
    "<p>a</p><template><div>hidden <b>deep</b></div>still hidden</template>shown<p>b</p>",
    "<template><template><p>x</p></template>y</template>z<div>w<!--c-->v<?pi p?>u</div>t",
    "<div>a<template><p>in</p></template><span>b<template>c<i>d</i></template>e</span>f</div>g",
    "<div><div><div>deep<template><p>q</p></template>r</div>s</div>t</div>u",
    "just text, no element",
])
def test_shown_text_is_the_text_outside_scripts_styles_and_templates(body):
    root = parse(page(body).encode()).root
    assert appshell.shown_text(root.find("body")) == "".join(_SHOWN(root.find("body")))


def test_shown_text_reads_a_page_deeper_than_python_recurses():
    """A page nested 2,000 levels deep (the parser's limit is 2,048) with a filled template: the walk keeps
    its own stack."""
    body = "<div>word " * 2000 + "<template><p>hidden</p></template>end"
    text = appshell.shown_text(parse(page(body).encode()).root.find("body"))
    assert text.split() == ["word"] * 2000 + ["end"]


@pytest.mark.parametrize("body", [
    "<p>one <b>two</b> three</p><script>var x</script>after<style>p{}</style>tail",
    "<p>a</p><template><div>hidden <b>deep</b></div>still hidden</template>shown<p>b</p>",
    "<div>a<template><p>in</p></template><span>b<template>c<i>d</i></template>e</span>f</div>g",
    "<p>" + "word " * 100 + "</p><p>" + "more " * 100 + "</p>",
])
@pytest.mark.parametrize("enough", [1, 5, 200, 10_000])
def test_shown_chars_counts_the_shown_text_until_enough(body, enough):
    """The count judge() reads: exact below ``enough``; at or past it once reached (it stops there)."""
    root = parse(page(body).encode()).root
    exact = len("".join(appshell.shown_text(root.find("body")).split()))
    got = appshell.shown_chars(root.find("body"), enough)
    assert got == exact if exact < enough else exact >= got >= enough
