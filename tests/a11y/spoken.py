"""What a screen-reader user hears first on a filtered page: the check shared by
tests/a11y/test_spoken.py and ``benchmarks/axe_report.py --spoken``.

The page is filtered by a preset, loaded into headless Chromium (tests/a11y/axe_run.py) and its
accessibility tree read with ``Accessibility.getFullAXTree`` (:meth:`Axe.spoken`: the named,
unignored nodes in reading order). Checked, each separately:

* ``skip_first`` — the first node spoken is the skip link (``accessibility.skip_link_text``);
* ``one_h1`` — the output holds exactly one ``<h1>``;
* ``headline_early`` — a level-1 heading is among the first ``EARLY`` named nodes;
* ``headline_is_title`` — that heading is the page's headline: at least ``TITLE_OVERLAP`` of its
  words are in the original page's ``<title>`` or ``og:title`` (pages with neither are not judged);
* ``no_removed`` — no spoken link is one that a filter removed (``state.removed_links``) and that
  is not also a link of the kept page: the removed-links list, if any, is collapsed;
* ``list_last`` — the removed-links list, if any, is the last element of ``<body>``;
* ``text_headline`` — in the text output (``output.format: text``) the ``<h1>``'s text comes
  within the first ``EARLY`` lines after the title.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pagesieve.engine import config as C
from pagesieve.engine.chain import Chain
from pagesieve.engine.document import parse
from pagesieve.engine.output import render

#: "Among the first three nodes with a name".
EARLY = 3
#: Share of the <h1>'s words found in the page title for it to be the headline (titles add the
#: site's name and a separator; headlines are sometimes shortened or reworded in the title).
TITLE_OVERLAP = 0.5
CHECKS = ("skip_first", "one_h1", "headline_early", "headline_is_title", "no_removed", "list_last",
          "text_headline")
_WORD = re.compile(r"\w+", re.U)
REMOVED_LIST = ".//*[contains(concat(' ', normalize-space(@class), ' '), ' pagesieve-removed-links ')]"


@dataclass
class Outcome:
    #: check name -> True / False / None (not applicable)
    checks: dict[str, bool | None] = field(default_factory=dict)
    first: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(v is not False for v in self.checks.values())

    def failures(self) -> list[str]:
        return [k for k, v in self.checks.items() if v is False]


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text or "")}


def _title(data: bytes) -> str:
    root = parse(data).root
    og = root.xpath("//meta[@property='og:title']/@content")
    title = root.find(".//head/title")
    return " ".join([*og[:1], title.text_content() if title is not None else ""])


def check_page(axe, cfg, preset: str, page) -> Outcome:
    """Filter ``page`` (a :class:`~tests.a11y.axe_run.CorpusPage`) with ``preset`` and check it."""
    spec = cfg.resolve(preset)
    chain: Chain = C.build_chain(spec)
    data = page.path.read_bytes()
    doc = parse(data, url=page.url or None)
    state, _ = chain.run(doc)
    html_bytes, _ = render(doc, state, chain.output)
    html = html_bytes.decode(doc.encoding, errors="replace")
    text_chain = C.build_chain(cfg.resolve(preset, C.overrides_to_tree([("output.format", "text")])))
    text = text_chain.process(data, url=page.url or None).body.decode(doc.encoding, errors="replace")
    spoken = axe.spoken(html)
    out = Outcome(first=[f"{s.role}{s.level or ''}: {s.name[:60]}" for s in spoken[:EARLY + 2]])
    a11y = next((f for f in chain.filters if f.name == "accessibility"), None)
    skip_text = a11y.settings.skip_link_text if a11y is not None else None
    out.checks["skip_first"] = (bool(spoken) and spoken[0].role == "link" and spoken[0].name == skip_text
                                if skip_text else None)
    body = doc.body
    h1s = [h for h in body.iter("h1")]
    out.checks["one_h1"] = len(h1s) == 1
    early = [s for s in spoken[:EARLY] if s.role == "heading" and s.level == 1]
    out.checks["headline_early"] = bool(early)
    title = _words(_title(data))
    h1_words = _words(h1s[0].text_content()) if h1s else set()
    out.checks["headline_is_title"] = (len(h1_words & title) >= TITLE_OVERLAP * len(h1_words) if h1_words and title
                                       else (False if not h1s else None))
    removed_list = body.xpath(REMOVED_LIST)
    kept_links = {" ".join(a.text_content().split()) for a in body.iter("a")
                  if not any(a in set(r.iter()) for r in removed_list)}
    removed_texts = {" ".join((t or "").split()) for _, _, t in state.removed_links} - kept_links - {""}
    out.checks["no_removed"] = not any(s.role == "link" and s.name in removed_texts for s in spoken)
    if removed_list:
        last = [c for c in body if isinstance(c.tag, str)][-1]
        out.checks["list_last"] = last is removed_list[0]
    else:
        out.checks["list_last"] = None
    if h1s:
        lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
        h1_text = " ".join(h1s[0].text_content().split())
        # The text starts with the title unless the <h1> is the title (output.render).
        first = lines[:EARLY + 1] if lines and not lines[0].startswith(h1_text[:40]) else lines[:EARLY]
        out.checks["text_headline"] = any(ln.startswith(h1_text[:40]) for ln in first)
    else:
        out.checks["text_headline"] = False
    return out


def summary(results: list) -> str:
    """Pass rates of [(CorpusPage, preset, Outcome)]: overall, per check, per corpus."""
    lines = []
    by_preset: dict[str, list] = {}
    for page, preset, outcome in results:
        by_preset.setdefault(preset, []).append((page, outcome))
    for preset, rows in by_preset.items():
        ok = sum(o.passed for _, o in rows)
        lines.append(f"spoken order, {preset}: {ok}/{len(rows)} pages pass every check")
        for check in CHECKS:
            judged = [o.checks[check] for _, o in rows if o.checks.get(check) is not None]
            lines.append(f"  {check:<18} {sum(judged)}/{len(judged)}")
        corpora = sorted({p.corpus for p, _ in rows})
        lines.append("  per corpus: " + ", ".join(
            f"{c} {sum(o.passed for p, o in rows if p.corpus == c)}/{sum(1 for p, _ in rows if p.corpus == c)}"
            for c in corpora))
        for page, o in rows:
            if not o.passed:
                lines.append(f"    {page.corpus}/{page.id[:10]} fails {o.failures()}; first: {o.first[:EARLY]}")
    return "\n".join(lines)
