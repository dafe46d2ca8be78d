"""One measurement of the page, shared by the chain and every filter, kept current as they change it.

:class:`TextMeasure` holds, for every element of the page, what :func:`pagesieve.dom.text_len`
would answer — the non-whitespace characters of the text under it, scripts and styles excluded —
measured in one pass over the tree (children before parents, so each element adds up its
children). The :class:`~pagesieve.chain.FilterContext` sees every change a filter makes and keeps
the numbers exact: a removal subtracts the node's count from its ancestors, an insertion or a
replacement measures the new subtree and adds it, a text change adds the difference. Changes it
cannot follow (a checkpointed copy is edited in place, an undo) drop the measurement; it is taken
again when next asked. A node the measurement does not know (built by a filter and not inserted)
is measured directly.

Measuring once instead of per question: the article-loss guard asks for the size of the body or
the article before every filter, and for the size of every removed node.
"""

from __future__ import annotations

from pagesieve import dom

#: Elements whose own text is not page text (dom.text_len's rule).
SILENT = frozenset({"script", "style"})


def chars(text: str | None) -> int:
    """Non-whitespace characters of ``text`` (str.split's whitespace)."""
    return len("".join(text.split())) if text else 0


class TextMeasure:
    """Per element: non-whitespace characters of the text under it (see the module doc)."""

    def __init__(self, root) -> None:
        self.chars: dict = {}
        self.measure(root)

    def measure(self, top) -> int:
        """Measure ``top``'s subtree (again), store every element's count; ``top``'s count."""
        counts = self.chars
        for el in reversed(list(top.iter())):
            tag = el.tag
            if not isinstance(tag, str):
                continue  # comments and PIs hold no page text (their tail belongs to the parent)
            silent = tag in SILENT
            n = 0 if silent else chars(el.text)
            for child in el:
                n += counts.get(child, 0)
                if not silent and child.tail:
                    n += chars(child.tail)
            counts[el] = n
        return counts.get(top, 0)

    def text_len(self, node) -> int:
        """``dom.text_len(node)``, from the measurement when it knows the node."""
        got = self.chars.get(node)
        if got is None:
            return dom.text_len(node)
        return got

    # -- kept current by FilterContext ---------------------------------------------------
    def _add(self, parent, delta: int) -> None:
        if not delta or parent is None:
            return
        counts = self.chars
        for el in (parent, *parent.iterancestors()):
            if el in counts:
                counts[el] += delta

    def removed(self, node, parent) -> None:
        """``node`` left ``parent`` (its tail stayed with ``parent``)."""
        self._add(parent, -self.chars.get(node, 0))

    def inserted(self, node, parent) -> None:
        """``node`` (and its tail) entered ``parent``."""
        n = self.measure(node) if isinstance(node.tag, str) else 0
        if parent.tag not in SILENT:
            n += chars(node.tail)
        self._add(parent, n)

    def replaced(self, old, new, parent) -> None:
        """``new`` took ``old``'s place (and tail) in ``parent``."""
        n = self.measure(new) if isinstance(new.tag, str) else 0
        self._add(parent, n - self.chars.get(old, 0))

    def text_set(self, node, old: str | None, new: str | None, tail: bool) -> None:
        owner = node.getparent() if tail else node
        if owner is None or not isinstance(owner.tag, str) or owner.tag in SILENT:
            return
        if not tail and not isinstance(node.tag, str):
            return
        self._add(owner, chars(new) - chars(old))

    def copied(self, original, copy) -> None:
        """``copy`` (a deep copy of ``original``) took its place: same counts, node for node."""
        counts = self.chars
        for a, b in zip(original.iter(), copy.iter()):
            if a in counts:
                counts[b] = counts[a]
