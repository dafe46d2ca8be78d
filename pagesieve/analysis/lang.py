"""A small, dependency-free guess of a text's language, for pages that do not declare one.

Two cues, cheapest first:

1. **Script.** Text mostly in one non-Latin script names its language (Hangul → ``ko``, kana →
   ``ja``, Han alone → ``zh``, Greek → ``el``, Hebrew → ``he``, Arabic → ``ar``, Thai → ``th``,
   Devanagari → ``hi``; Cyrillic → ``ru``, or ``uk`` when the Ukrainian letters і ї є ґ occur).
2. **Stop words** for Latin-script text: count the words that belong to each language's list of
   very frequent short words (Grefenstette 1995, "Comparing two language identification schemes",
   the short-word method: a few dozen function words identify a language from a few sentences).
   The best language must have at least ``MIN_HITS`` hits and ``MIN_MARGIN`` times as many as the
   runner-up, otherwise the answer is None (unknown) and the caller falls back to a default.

Only the languages listed here can be recognised; this is a fallback for pages that lack a
``lang`` attribute, not a general language identifier (``langdetect`` is one, but it is large
and slow to load; a declared ``lang`` is kept whenever there is one).
"""

from __future__ import annotations

import re
from collections import Counter

#: Script ranges (Unicode blocks) and the language each one names.
_SCRIPTS: tuple[tuple[str, re.Pattern], ...] = (
    ("ko", re.compile(r"[\uac00-\ud7af\u1100-\u11ff]")),
    ("ja", re.compile(r"[\u3040-\u30ff]")),
    ("zh", re.compile(r"[\u4e00-\u9fff]")),
    ("el", re.compile(r"[\u0370-\u03ff]")),
    ("he", re.compile(r"[\u0590-\u05ff]")),
    ("ar", re.compile(r"[\u0600-\u06ff]")),
    ("th", re.compile(r"[\u0e00-\u0e7f]")),
    ("hi", re.compile(r"[\u0900-\u097f]")),
    ("ru", re.compile(r"[\u0400-\u04ff]")),
)
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_UKRAINIAN = re.compile(r"[іїєґІЇЄҐ]")
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)

#: A script names the language when at least this share of the letters is in it.
SCRIPT_SHARE = 0.3
#: Stop-word method: the best language needs at least this many stop-word hits ...
MIN_HITS = 5
#: ... and at least this many times the hits of the runner-up (else: unknown).
MIN_MARGIN = 1.5
#: Only the first this many characters are looked at (a few paragraphs are enough).
SAMPLE_CHARS = 5000

_STOPWORDS: dict[str, frozenset[str]] = {lang: frozenset(words.split()) for lang, words in {
    "en": "the and of to in is that for it with as was on be by this are from at or have an not "
          "which but they his her their has were been would will what when there can about",
    "de": "der die das und ist nicht ein eine zu den von mit sich des auf für im dem auch es "
          "als wird bei oder nach wie aus sind einer werden hat noch über",
    "fr": "le la les et des est un une du que dans pour pas qui sur au avec ce il elle sont "
          "aux ont par plus ne se cette mais ou été nous vous leur",
    "es": "el la los las y de que en un una es por con para del se no al lo como más pero sus "
          "su fue este esta han ha muy también entre",
    "it": "il di che la e un una per non sono del della con gli le nel alla si è da dei ma "
          "come anche più questo questa delle ha",
    "pt": "o os a as de que e do da em um uma para com não por dos das se na no mais ao pelo "
          "pela foi são também como mas seu sua",
    "nl": "de het een en van is dat op te in voor niet met zijn er aan ook als bij door maar "
          "om dan nog wordt worden naar",
    "sv": "och att det som en är på för med av till den inte har om ett var jag men från "
          "eller kan vi de sig hade",
}.items()}
#: Word -> the languages whose stop words hold it, in _STOPWORDS order: one lookup a word instead of
#: one a language (the hits are counted in the same order, so ties rank the same).
_LANGS_OF: dict[str, tuple[str, ...]] = {}
for _lang, _words in _STOPWORDS.items():
    for _word in _words:
        _LANGS_OF[_word] = (*_LANGS_OF.get(_word, ()), _lang)
del _lang, _words, _word


def detect(text: str) -> str | None:
    """The language code of ``text`` (see the module doc), or None when unsure."""
    sample = text[:SAMPLE_CHARS]
    letters = len(_LETTER.findall(sample))
    if not letters:
        return None
    for lang, pattern in _SCRIPTS:
        if len(pattern.findall(sample)) >= SCRIPT_SHARE * letters:
            if lang == "zh" and len(_SCRIPTS[1][1].findall(sample)) > 0:
                return "ja"  # Japanese mixes kana with Han
            if lang == "ru" and _UKRAINIAN.search(sample):
                return "uk"
            return lang
    hits: Counter = Counter()
    for word in _WORD.findall(sample.lower()):
        for lang in _LANGS_OF.get(word, ()):
            hits[lang] += 1
    ranked = hits.most_common(2)
    if not ranked or ranked[0][1] < MIN_HITS:
        return None
    if len(ranked) > 1 and ranked[0][1] < MIN_MARGIN * ranked[1][1]:
        return None
    return ranked[0][0]
