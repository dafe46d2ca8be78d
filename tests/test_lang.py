"""The fallback language guess for pages that declare none: by script, then by stop words."""

import pytest

from pagesieve.analysis import lang

EN = "The committee said that the plan would be ready in the spring, and it has been approved by the board."
DE = "Der Ausschuss sagte, dass der Plan im Frühjahr fertig sein wird, und er ist auch von dem Vorstand genehmigt."
FR = "Le comité a dit que le plan sera prêt au printemps et il a été approuvé par le conseil dans la semaine."
ES = "El comité dijo que el plan estará listo en la primavera y que fue aprobado por la junta con los votos."


@pytest.mark.parametrize("text, expected", [
    (EN, "en"), (DE, "de"), (FR, "fr"), (ES, "es"),
    ("서울은 대한민국의 수도이며 가장 큰 도시이다.", "ko"),
    ("東京は日本の首都であり、最大の都市です。", "ja"),        # kana among the Han: Japanese
    ("北京是中华人民共和国的首都。", "zh"),
    ("Η Αθήνα είναι η πρωτεύουσα της Ελλάδας.", "el"),
    ("Москва — столица России и крупнейший город страны.", "ru"),
    ("Київ — столиця України, її найбільше місто.", "uk"),  # Cyrillic with і ї є ґ
])
def test_recognised(text, expected):
    assert lang.detect(text) == expected


@pytest.mark.parametrize("text", [
    "",
    "12345 678 -- !!",                      # no letters
    "Zebra quokka yak",                     # letters, no stop words of any language
    "the and of to",                        # fewer than MIN_HITS stop words
])
def test_unknown_when_unsure(text):
    assert lang.detect(text) is None


def test_a_tie_between_languages_is_unknown():
    # as many English stop words as German ones: without a margin no language wins
    assert lang.detect("the der the der the der the der the der") is None


def test_only_the_sample_is_read():
    head = EN * (lang.SAMPLE_CHARS // len(EN) + 1)
    assert lang.detect(head + FR * 400) == "en"   # the French after the sample is never read
    assert lang.detect(FR * 400) == "fr"
