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

The page set: every ``STEP``-th page of the shared corpus in ``truth.jsonl`` order (13 of 181).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
AXE_JS = HERE / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM = Path("/usr/bin/chromium")
TAGS = ("wcag2a", "wcag2aa", "best-practice")
#: The impacts the gate is about (axe: minor < moderate < serious < critical).
GATED = frozenset({"serious", "critical"})
#: Every STEP-th corpus page (truth.jsonl order, starting with the first) is measured.
STEP = 15
PRESETS = ("declutter", "reader")
#: Where the page is "loaded from" (never resolved: the route handler answers it).
PAGE_URL = "https://page.invalid/"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-dev-shm-usage",
                 "--disable-gpu", "--disable-extensions", "--no-first-run", "--mute-audio"]
_RUN = """async (tags) => {
  const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
  return r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.length}));
}"""


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
            page = context.new_page()
            page.route("**/*", lambda route: _serve(route, body))
            page.goto(PAGE_URL, wait_until="domcontentloaded", timeout=60_000)
            page.evaluate(self._source)
            found = page.evaluate(_RUN, list(TAGS))
        finally:
            context.close()
        return [Violation(v["id"], v["impact"] or "minor", v["nodes"]) for v in found]


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


def sample_pages(step: int = STEP) -> list[tuple[str, Path, str]]:
    """(id, html path, url) of the measured pages: every ``step``-th page of the corpus."""
    import json

    from tests.conftest import CORPUS

    truth = CORPUS / "truth.jsonl"
    if not truth.exists():
        return []
    rows = [json.loads(line) for line in truth.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = []
    for row in rows[::step]:
        path = CORPUS / "pages" / f"{row['id']}.html"
        if path.exists():
            out.append((row["id"], path, row.get("url") or ""))
    return out
