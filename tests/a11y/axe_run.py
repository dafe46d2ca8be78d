"""axe-core in headless Chromium, offline: what tests/a11y/test_axe.py and benchmarks/axe_report.py share.

A page's HTML is loaded into the system Chromium (``/usr/bin/chromium``; Playwright's own
browser download is not used) as the response to a navigation to ``PAGE_URL`` that a route
handler answers itself. Every other request the page makes is aborted (no network: style
sheets, images, frames and scripts from the web never load; ``data:`` URLs load). The page's
own scripts are blocked by a ``Content-Security-Policy: script-src 'none'`` header on that
response, so the same HTML always gives the same result: JavaScript cannot simply be turned
off in the context (``java_script_enabled=False``), because axe itself then never finishes
(its timers do not run), and ``set_content`` has no response to carry the header. axe-core
(``tests/a11y/node_modules/axe-core``, pinned in package.json, installed by ``npm ci --prefix
tests/a11y``, which scripts/setup.sh runs) is then evaluated in the page and run with the
``wcag2a``, ``wcag2aa`` and ``best-practice`` tags.

The page sets: every corpus folder under ``../shared/data/extraction/`` (``PAGESIEVE_CORPUS``
names one folder instead), each sampled at every ``step``-th page in ``truth.jsonl`` order; the
gate in ``make test`` takes ``GATE_PAGES`` pages of each corpus and ``GATE_PAGES_PER_TYPE`` of each
page type of a corpus that labels them, the benchmark
(benchmarks/axe_report.py) any step down to 1 (every page).

:meth:`Axe.spoken` reads the same headless Chromium's accessibility tree (Chrome DevTools
Protocol ``Accessibility.getFullAXTree``): the nodes a screen reader speaks, in reading order.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
#: The shared corpora (one folder each, with pages/ and truth.jsonl): ``PAGESIEVE_CORPORA``, else
#: ``shared/data/extraction`` beside the checkout (or beside the folder of a git worktree).
CORPORA = Path(os.environ.get("PAGESIEVE_CORPORA") or next(
    (p / "shared" / "data" / "extraction" for p in (REPO.parent, REPO.parent.parent)
     if (p / "shared" / "data" / "extraction").is_dir()), REPO.parent / "shared" / "data" / "extraction"))
AXE_JS = HERE / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM = Path("/usr/bin/chromium")
TAGS = ("wcag2a", "wcag2aa", "best-practice")
#: The impacts the gate is about (axe: minor < moderate < serious < critical).
GATED = frozenset({"serious", "critical"})
#: Every STEP-th corpus page (truth.jsonl order, starting with the first) is measured.
STEP = 15
#: Pages of each corpus in the make-test gate (spread evenly over the corpus): 5 corpora x 2 pages
#: x (1 + 2 presets) axe runs, plus the other presets on one page of each corpus, stay within a few
#: minutes on a shared 2-core machine (3 pages took 8 min under a load of 12).
GATE_PAGES = 2
#: And, in a corpus that labels its pages' types (wcxb-dev: article, product, forum …), this many
#: pages of each type besides (the gate sees every kind of page).
GATE_PAGES_PER_TYPE = 1
PRESETS = ("declutter", "reader")
#: Where the page is "loaded from" (never resolved: the route handler answers it).
PAGE_URL = "https://page.invalid/"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-dev-shm-usage",
                 "--disable-gpu", "--disable-extensions", "--no-first-run", "--mute-audio"]
_RUN = """async (tags) => {
  const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
  return r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.length}));
}"""
#: Roles that carry no speech of their own (their text is spoken through their parent or children).
SILENT_ROLES = frozenset({"RootWebArea", "InlineTextBox", "LineBreak", "none", "generic", "Ignored"})


def missing() -> str | None:
    """Why axe cannot run here (for a skip), or None when it can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} not found (apt-get install chromium)"
    if not AXE_JS.exists():
        hint = "npm ci --prefix tests/a11y" if shutil.which("npm") else "install node and npm, then npm ci --prefix tests/a11y"
        return f"{AXE_JS} not found ({hint})"
    return None


@dataclass(frozen=True)
class Violation:
    rule: str
    impact: str
    nodes: int


class Axe:
    """One headless Chromium for many pages: ``with Axe() as axe: axe.violations(html)``."""

    def __enter__(self) -> "Axe":
        from playwright.sync_api import sync_playwright

        self._source = AXE_JS.read_text(encoding="utf-8")
        self._pw = sync_playwright().start()
        try:
            self._browser = self._pw.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                                     args=CHROMIUM_ARGS)
        except Exception:
            self._pw.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._browser.close()
        self._pw.stop()

    def violations(self, html: str) -> list[Violation]:
        """The axe violations of ``html`` (every impact), one per rule."""
        body = html.encode("utf-8")
        context = self._browser.new_context()
        try:
            page = self._load(context, body)
            page.evaluate(self._source)
            found = page.evaluate(_RUN, list(TAGS))
        finally:
            context.close()
        return [Violation(v["id"], v["impact"] or "minor", v["nodes"]) for v in found]

    def spoken(self, html: str) -> list["Spoken"]:
        """What a screen reader reads out, in order: the named, unignored nodes of Chromium's
        accessibility tree (``Accessibility.getFullAXTree``), depth first from the root. Text
        that only repeats its parent's name (a link's own text) is left out, and so is the root
        (the document, named by its title)."""
        body = html.encode("utf-8")
        context = self._browser.new_context()
        try:
            page = self._load(context, body)
            cdp = context.new_cdp_session(page)
            nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
        finally:
            context.close()
        return _reading_order(nodes)

    @staticmethod
    def _load(context, body: bytes):
        page = context.new_page()
        page.route("**/*", lambda route: _serve(route, body))
        page.goto(PAGE_URL, wait_until="domcontentloaded", timeout=60_000)
        return page


@dataclass(frozen=True)
class Spoken:
    role: str
    name: str
    level: int | None = None


def _value(node: dict, key: str):
    return (node.get(key) or {}).get("value")


def _reading_order(nodes: list[dict]) -> list[Spoken]:
    by_id = {n["nodeId"]: n for n in nodes}
    root = next((n for n in nodes if not n.get("parentId")), None)
    out: list[Spoken] = []
    stack = [(root, "")] if root else []
    while stack:
        node, parent_name = stack.pop()
        role, name = _value(node, "role") or "", " ".join(str(_value(node, "name") or "").split())
        said = parent_name
        if not node.get("ignored") and name and role not in SILENT_ROLES and not (
                role == "StaticText" and name in parent_name):
            level = next((int(p["value"]["value"]) for p in node.get("properties", [])
                          if p.get("name") == "level"), None)
            out.append(Spoken(role, name, level))
            said = name
        kids = [by_id[c] for c in node.get("childIds", []) if c in by_id]
        stack.extend((k, said) for k in reversed(kids))
    return out


def _serve(route, body: bytes) -> None:
    """The page itself (scripts blocked), data: URLs; every other request is aborted."""
    request = route.request
    if request.url == PAGE_URL and request.is_navigation_request():
        route.fulfill(status=200, body=body, headers={"content-type": "text/html; charset=utf-8",
                                                      "content-security-policy": "script-src 'none'"})
    elif request.url.startswith("data:"):
        route.continue_()
    else:
        route.abort()


def gated(violations: list[Violation]) -> set[str]:
    """Rule ids violated with a serious or critical impact."""
    return {v.rule for v in violations if v.impact in GATED}


@dataclass(frozen=True)
class CorpusPage:
    corpus: str
    id: str
    path: Path
    url: str
    #: meta.page_type where the corpus gives it (wcxb-dev), else the corpus's kind.
    page_type: str


#: The kind of every page of a corpus that does not label its pages (see the corpora README).
CORPUS_KIND = {"scrapinghub": "article", "dragnet-dev": "article", "l3s-gn1-dev": "article",
               "cleaneval-dev": "mixed"}


def corpora() -> list[Path]:
    """The corpus folders measured: every folder of ``PAGESIEVE_CORPORA`` (or of the shared
    extraction data) that has a truth.jsonl, sorted by name; ``PAGESIEVE_CORPUS`` alone when it is
    set and ``PAGESIEVE_CORPORA`` is not."""
    one = os.environ.get("PAGESIEVE_CORPUS")
    if one and not os.environ.get("PAGESIEVE_CORPORA"):
        return [Path(one)] if (Path(one) / "truth.jsonl").exists() else []
    if not CORPORA.is_dir():
        return []
    return sorted(d for d in CORPORA.iterdir() if (d / "truth.jsonl").exists())


def corpus_rows(corpus: Path) -> list[CorpusPage]:
    """Every page of ``corpus`` in truth.jsonl order (lines split on \\n only: some truths hold
    U+2028 inside their strings)."""
    out = []
    for line in (corpus / "truth.jsonl").read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        row = json.loads(line)
        path = corpus / "pages" / f"{row['id']}.html"
        if path.exists():
            kind = (row.get("meta") or {}).get("page_type") or CORPUS_KIND.get(corpus.name, "unknown")
            out.append(CorpusPage(corpus.name, row["id"], path, row.get("url") or "", kind))
    return out


def sample(step: int = STEP, per_corpus: int | None = None, per_type: int | None = None) -> list[CorpusPage]:
    """Every ``step``-th page of each corpus (first page first); with ``per_corpus``, that many
    pages spread evenly over each corpus instead; with ``per_type`` too, in a corpus that labels its
    pages' types (wcxb-dev), at least that many pages of each type (the middle page of each of
    ``per_type`` equal slices of that type's pages, truth.jsonl order), so every kind of page is seen."""
    out = []
    for corpus in corpora():
        rows = corpus_rows(corpus)
        n = max(1, len(rows) // per_corpus) if per_corpus else max(1, step)
        picked = rows[::n]
        picked = picked[:per_corpus] if per_corpus else picked
        types = sorted({r.page_type for r in rows})
        if per_type and corpus.name not in CORPUS_KIND and len(types) > 1:
            for kind in types:
                of_kind = [r for r in rows if r.page_type == kind]
                k = max(1, len(of_kind) // per_type)
                have = sum(r.page_type == kind for r in picked)
                picked += [r for r in of_kind[k // 2::k] if r not in picked][:max(0, per_type - have)]
        out += picked
    return out


def sample_pages(step: int = STEP) -> list[tuple[str, Path, str]]:
    """(id, html path, url) of every ``step``-th page of the corpora."""
    return [(p.id, p.path, p.url) for p in sample(step)]
