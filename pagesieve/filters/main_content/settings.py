"""The settings of ``main_content``: the thresholds of the scoring, the choice, the widening and the cleanup."""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.core.settings import setting


@dataclass(frozen=True)
class MainContentSettings:
    """Thresholds of the scoring, the choice and the cleanup."""

    # Sources: A paragraph scores only with at least this many characters (Readability: innerText.length < 25 is
    # skipped).
    min_paragraph_chars: int = setting(25, "A paragraph counts only with at least this many characters.", minimum=0,
                                       group="advanced", scope="user")
    # Sources: A paragraph's score goes up this many ancestor levels (Readability: _getNodeAncestors(node, 5)).
    ancestor_levels: int = setting(5, "A paragraph's score also goes to this many blocks around it, level by level.", minimum=1, maximum=20, group="advanced", scope="user")
    # Sources: Score added (positive names) or taken (negative names) per class or id attribute (Readability:
    # _getClassWeight, 25).
    class_weight: int = setting(25, "Points added or taken for a block whose class or id name suggests content or "
                                    "clutter.", minimum=0, group="advanced", scope="user")
    # Sources: Candidates scoring at least this share of the best are alternatives (Readability: 0.75).
    alternative_ratio: float = setting(0.75, "Blocks scoring at least this share of the best one are its "
                                             "alternatives.", minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: When this many alternatives share an ancestor with the best, that ancestor is chosen (Readability:
    # MINIMUM_TOPCANDIDATES = 3).
    min_top_candidates: int = setting(3, "When this many alternatives sit inside one larger block with the best, that"
                                         " larger block is chosen.", minimum=1,
                                      group="advanced", scope="user")
    # Sources: A sibling of the chosen node joins it when it scores at least this share of the chosen score
    # (Readability: topCandidate score * 0.2).
    sibling_ratio: float = setting(0.2, "A block next to the chosen one joins it when it scores at least this share "
                                        "of the chosen score ...", minimum=0,
                                   maximum=1, group="advanced", scope="user")
    # Sources: ... and at least this score (Readability: Math.max(10, ...)).
    sibling_min_score: float = setting(10, "... and at least this many points.",
                                       minimum=0, group="advanced", scope="user")
    # Sources: An unscored sibling paragraph joins with at least this many characters and link density below
    # sibling_link_density (Readability: 80).
    sibling_paragraph_chars: int = setting(80, "A paragraph next to the chosen block joins it with at least this many"
                                               " characters and few links.", minimum=0, group="advanced", scope="user")
    # Sources: Link density bound of a joining sibling paragraph (Readability: 0.25).
    sibling_link_density: float = setting(0.25, "The most link text (as a share of its characters) a joining "
                                                "paragraph may have.", minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: An article holds at least this many characters; below it the scoring runs again without leaving out
    # unlikely blocks (DOM-and-NLP proxy paper, "Main article extraction": 500; Readability DEFAULT_CHAR_THRESHOLD).
    min_article_chars: int = setting(500, "An article holds at least this many characters; with fewer, the search "
                                          "runs again without skipping blocks that look unlikely.",
                                     minimum=0, group="advanced", scope="user")
    # Sources: Move up to a parent that scores more than the candidates below it on the way (Readability.js does;
    # readability-lxml does not: with class weights of 25 it climbs to page-wide containers).
    climb: bool = setting(False, "Move up to a larger block that scores more than the blocks below it (can reach "
                                 "page-wide containers).", group="advanced", scope="user")
    # Sources: Also keep blocks elsewhere with the chosen block's tag and class that score like a joining sibling
    # (articles split in chunks; Readability's same-class sibling bonus, widened to cousins).
    cousins: bool = setting(True, "Also keep blocks elsewhere that look like the chosen one and score like a joining "
                                  "block (articles split in parts).", group="advanced", scope="user")
    clean: bool = setting(True, "Remove boilerplate inside the chosen node (bylines, share bars, related lists, "
                                "comments, link lists, hidden elements).", group="advanced", scope="user")
    captions: bool = setting(True, "Inside the article, remove image captions, credits and galleries (the "
                                   "images stay; captions are text about images, not the article).", group="advanced", scope="user")
    # Sources: Inside the article, a heading whose words are at least this share of the page title's words repeats the
    # title and is removed (the text output starts with the title; Readability _headerDuplicatesTitle).
    title_overlap: float = setting(0.8, "Inside the article, a heading that repeats at least this share of the page "
                                        "title's words is removed (the page keeps its title).", minimum=0,
                                   maximum=1, group="advanced", scope="user")
    # Sources: Inside the article, a list, table or division whose link density (link characters / characters) is
    # above this is removed (Readability _cleanConditionally: weight < 25 and linkDensity > 0.2).
    clean_link_density: float = setting(0.2, "Inside the article, a list, table or block with more than this share of"
                                             " its characters in links is removed.",
                                        minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: ... the bound for blocks whose names say content (Readability: weight >= 25 and linkDensity > 0.5).
    clean_link_density_positive: float = setting(0.5, "... and this share for blocks whose names say they are "
                                                      "content.",
                                                 minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: A block with at least this many commas is prose and is never removed by the link-density cleanup
    # (Readability: commas < 10).
    clean_max_commas: int = setting(10, "A block with at least this many commas is prose and is never removed by that"
                                        " clean-up.", minimum=0,
                                    group="advanced", scope="user")
    # Sources: A single cleanup removal takes at most this share of the article's text; larger blocks stay unless they
    # are named or semantic boilerplate outside the core (our bound: boilerplate is small).
    clean_max_share: float = setting(0.3, "One clean-up removal takes at most this share of the article's text "
                                          "(larger blocks stay unless clearly clutter).", minimum=0,
                                     maximum=1, group="advanced", scope="user")
    # Sources: Start the kept content with the page's headline as its one <h1>, then the byline and date from the
    # page's metadata.
    headline: bool = setting(True, "Start the kept content with the page's headline, then its byline and date.", group="advanced", scope="user")
    section_link_density: float = setting(0.1, "On a service, product, documentation or listing page (detected type), "
                                               "the chosen block widens to its parents while their link density "
                                               "stays at most this (0 = off).",
                                          minimum=0, maximum=1, group="advanced", scope="user")
    prose_around: bool = setting(True, "On a page that is not a forum (nor a service, product, documentation or "
                                       "listing page, where sections widen already), one chosen block that holds "
                                       "less than half of the prose block around it (link density at most "
                                       "section_link_density, no menus, sidebars or comments by name) gives way "
                                       "to that block: a long text split in chunks.", group="advanced", scope="user")
    thread_widen: bool = setting(True, "On a forum thread (detected page type), keep the block of the repeated "
                                       "posts when the chosen block is one post inside it.",
                                 group="advanced", scope="user")
    # Sources: If the cleanup would take more than this share of the article's text, it is skipped on that page (our
    # bound, under safety.max_article_loss).
    clean_max_total: float = setting(0.5, "If the clean-up would take more than this share of the article's text, it "
                                          "is skipped on that page.",
                                     minimum=0, maximum=1, group="advanced", scope="user")
    main_share: float = setting(0.5, "When the page has one semantic main block (<main>/role=main, else one "
                                     "<article>/articleBody) and the chosen content holds less than this share "
                                     "of its text, the main block is kept instead (0 = off).",
                                minimum=0, maximum=1, group="advanced", scope="user")
    text_over_links: bool = setting(True, "Keep a chosen text of article size (min_article_chars) instead of the "
                                          "semantic main block around it when what the main block adds is mostly "
                                          "links (over main_link_density of it: a grid of products or teasers).",
                                    group="advanced", scope="user")
    main_link_density: float = setting(0.5, "... unless the main block's link density is above this (a thin choice "
                                            "on a page with no article-sized text takes the main block whatever its "
                                            "link density: a list's items are links).",
                                       minimum=0, maximum=1, group="advanced", scope="user")
    main_rest_link_density: float = setting(0.0, "On a service, product, documentation or listing page (detected "
                                                 "type), when the chosen content lies inside the page's one "
                                                 "<main> (not an <article>), the whole main block is kept when "
                                                 "the rest of it (at least half of min_article_chars) has a link "
                                                 "density of at most this: a reference page's other sections, "
                                                 "with their cross-references (0 = off, the default: at 0.25 it "
                                                 "moved three pages of all six corpora, one down and two up, "
                                                 "and no corpus by more than .0006).",
                                            minimum=0, maximum=1, group="advanced", scope="user")
    second_opinion_share: float = setting(0.4, "On a page that is not an article or a forum (detected type), when "
                                               "the chosen text holds less than this share of the unlinked text "
                                               "outside the page's furniture (its header, footer, menus and "
                                               "sidebars), that text's blocks join it: the page's other sections "
                                               "beside the one chosen (0 = off; 0.3 helps fewer pages, 0.5 starts "
                                               "to keep the clutter around some short stories).",
                                          minimum=0, maximum=1, group="advanced", scope="user")
    second_opinion_link_density: float = setting(0.5, "... a block outside the furniture is kept whole at a link "
                                                      "density of at most this; above it, its parts are judged "
                                                      "one by one.",
                                                 minimum=0, maximum=1, group="advanced", scope="user")
    grid_share: float = setting(1.0, "On a listing or collection page, when the chosen content holds less than "
                                     "this share of the text of the page's grid of repeated items, the grid is "
                                     "kept instead (0 = off).", minimum=0, maximum=10, group="advanced", scope="user")
