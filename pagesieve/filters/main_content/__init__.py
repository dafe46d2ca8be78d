"""``main_content``: the reader's main text — scored paragraphs, link density, then cleanup inside.

Sources (each threshold's doc names its own):

* **Paragraph scoring** — Readability (Arc90 1.7.1 / ``mozilla/readability:Readability.js``,
  ``_grabArticle``): every paragraph of at least ``min_paragraph_chars`` characters scores
  ``1 + commas + min(chars / 100, 3)`` (we count commas, not comma-separated pieces) and gives
  that score to its parent in full, to its grandparent by half and to the ancestor ``k`` levels
  up by ``1 / (3k)``, up to ``ancestor_levels`` levels. A candidate starts with a tag weight (div
  +5; pre, td, blockquote +3; lists and forms −3; headings −5) and a class/id weight (±25 per
  attribute matching the positive/negative patterns).
* **Link density** — Gunasundari & Karthikeyan ("A study of content extraction from web pages based on
  links", 3.1 "LTD"): a candidate's score is multiplied by ``1 − LTD`` (Readability
  does the same), and — our addition, from the same paper's step 2 — a paragraph's own score
  by ``1 − LTD`` of the paragraph, so link runs never carry a candidate.
* **Choice** — Readability: the best candidate; if at least ``min_top_candidates`` of the
  best five score within ``alternative_ratio`` of it, their common ancestor; up through
  wrappers with a single child; sibling blocks whose score is at least ``sibling_ratio`` of
  the best (and ``sibling_min_score``), or whose text is a real paragraph, join it.
  Readability.js's climb to a parent that out-scores the way up is off (``climb``; on the
  shared corpus it climbs to page-wide containers). Our addition (``cousins``): blocks elsewhere
  with the best block's tag and class that score like a joining sibling also join (articles
  split in chunks).
* **Article size** — Agarwal, Chheda, Shah & Narvekar ("Content extraction using Document Object
  Model and Natural Language Processing for web", "Main article extraction": an article subtree holds at least 500
  characters; Readability's ``DEFAULT_CHAR_THRESHOLD`` is also 500). A first pass leaves out
  paragraphs inside unlikely blocks (menus, comments, sidebars, cookie and consent banners by
  name); when what it keeps, less the unlikely blocks inside, has fewer than ``min_article_chars``
  it runs again over every paragraph (Readability's retry without ``FLAG_STRIP_UNLIKELYS``) but
  those in a dialog over the page (``<dialog>``, a dialog role, ``aria-modal``) or in a banner
  named like a cookie or consent one: on a listing with little prose a consent manager's policy
  text outscored the page's own (one such banner, no dialog by its markup, was chosen on a shop's
  category page: wcxb-dev-more .7548 -> .7578, that page .25 -> .97, no other page moved).
* **Cleanup inside the chosen node** — Readability's ``_prepArticle``/``_cleanConditionally``
  and HTML semantics: hidden elements (not a link hidden from screen readers and the keyboard only,
  ``aria-hidden`` with ``tabindex=-1``: a card's second link, on its summary, which every sighted
  visitor reads); ``nav``/``aside``/``footer``/``form``/``dialog`` blocks,
  navigation and dialog roles; blocks named like bylines, dates, share bars, related lists, comments,
  newsletters, ads (``BOILERPLATE``; a block named only "related" that is prose with hardly a link is
  the page's text; the story's pictures in such a block stay, as in a list below: a shop's picture
  column named for the share buttons it also holds), but for a comment thread; short blocks that are only a label ("Advertisement",
  "Read more"); image captions, credits and galleries (``captions``; the images stay; a "slideshow"
  of prose — testimonials, feature cards, with or without their pictures — is text); headings that repeat the page title
  (``title_overlap``); lists, tables and divisions with fewer than ``clean_max_commas`` commas whose
  link density is above ``clean_link_density`` (``clean_link_density_positive`` when their names say
  "content"), but for a blurb: one link beside twice its text in prose (a linked heading over a sentence),
  and but for a block whose links stand together in lists of links inside it with a paragraph of prose
  beside them (``sibling_paragraph_chars`` unlinked, at most one link left outside the lists): that block
  is looked into and its lists go, its prose stays (a service's section of what it offers, its offices'
  links and a paragraph on opening hours; a box of teasers has a link over each summary and goes whole);
  a short heading right before a removed list of three links or more, which the list ends the section
  of (another heading or nothing follows it), goes with it: "Our offices", "You may be interested in
  the following topics as well:" would head nothing;
  the story's pictures in such a list (not links themselves: a photo with its photographer's linked
  credit) stay, as in a caption block. Not when the choice itself is mostly links (over
  ``main_link_density``) and found only on the pass over every paragraph: a page of linked cards the
  page type did not see as a listing, whose cards went one by one until the filter was undone (a
  recipe collection's grid; wcxb-dev-more .7330 -> .7384, three listings up, no other page moved).
  Size bounds: a removal takes at most ``clean_max_share`` of the article's text, and all
  such removals at most ``clean_max_total`` (else the cleanup is skipped on that page) — except
  named or semantic boilerplate outside the *core*, the innermost scored block under the best
  one that keeps ``alternative_ratio`` of its score (e.g. a comment thread beside the story
  body in the same ``<article>``): it may be of any size.
* **Comment threads** (on blogs the readers' comments can be 97% of the page) — a block
  named like comments that repeats (``THREAD_MIN_COMMENTS`` siblings of its tag and class) or holds
  that many blocks named like comments is a thread: except on a forum (where the posts are the
  content) it goes whatever its size, not bounded by ``clean_max_total`` and not counted by the
  chain's article-loss guard, provided the story left holds ``THREAD_MIN_STORY_CHARS``. When the second
  pass (every paragraph) picks a block inside a thread, the first pass's block is the story. On a
  product page blocks named like reviews count too: the customers' reviews are its comments.

**Widening to the page's own content block** (on pages that are not stories the best-scored
paragraph block is often one short section, a cookie notice or the heading of a grid):

* *out of the furniture* — a choice that lies wholly in page furniture (``dom.furniture_between``: the
  page's footer or banner, a side bar, a menu) gives way to the page's one main block (below) when that
  is no furniture and holds ``min_paragraph_chars`` of text: the second pass, over every paragraph, can
  find a footer's blurbs longer than a short page's own text (a shop's category page, its own text
  named like a footer, "seo-footer-copy", so left out of the first pass). Measured (the six corpora):
  wcxb-dev .8717 -> .8731 (one page .27 -> .69), wcxb-dev-more .7512 -> .7548 (one page .15 -> 1.0), no
  other page moved.
* *semantic main* — when the page has one ``<main>``/``role=main`` (else one ``<article>`` or
  ``itemprop=articleBody``, ``pagesieve.analysis.furniture.semantic_main``) with a link density of at most
  ``main_link_density`` (any, when the chosen block is thin: under ``min_article_chars`` from the second
  pass, a page with no article-sized prose, whose main block is a list of linked items), and the chosen
  block holds less than ``main_share`` of its text, the main block is kept instead — except when the chosen block lies inside the main block and the main block is
  an ``<article>``, or the page is an article (detected type) and the block was found on the first
  pass: there the rest of the main block is the headline, comments, related stories and the like.
  Nor when the first pass chose ``<article>`` elements of article size (``min_article_chars``): the
  page marks that text as its story (a shop's product description in an ``<article>``, its main block
  also holding the buying box, reviews and accessories).
  Nor when the chosen block is a text of ``min_article_chars`` or more and what the main block adds
  beside it is mostly links (over ``main_link_density``: a grid of products or teasers under a shop
  category's description; ``text_over_links``, noted as ``keep``). Measured (the six corpora):
  wcxb-dev .8684 -> .8713 (one page .13 -> 1.0), wcxb-dev-more .7233 -> .7254 (one page .50 -> 1.0),
  no other page moved.
* *grid of items* — on a listing or collection page whose chosen block is thin (under
  ``min_article_chars``, or found only on the second pass), the page's largest group of repeated
  linked items (``pagetype._repeated_items``) is kept instead when the chosen block holds less than
  ``grid_share`` of the grid's text and no item holds more than ``GRID_ITEM_SHARE`` of it. On a
  page of any other type but a forum the same holds when the thin chosen block lies inside one of
  the grid's items (a blog's front page of teasers detected as an article: one teaser was chosen).

* *sections side by side* — on a service, product, documentation or listing page (detected type) the content
  is often sections each in its own block: the chosen block widens to its parents while each parent's
  link density is at most ``section_link_density`` (prose, not navigation), below ``<body>``, not
  into an ``<article>`` and outside ``nav``/``aside``/``footer``/``form``. When several sibling blocks
  were chosen, a sibling of theirs that is a section of prose too (half of ``min_article_chars``, link
  density at most ``section_link_density``, not boilerplate by tag, role or name) joins them.
* *prose around a fragment* (``prose_around``) — on a page of any other type (an article, a collection,
  not a forum), when the chosen block(s) hold at least ``min_article_chars`` (a shorter pick is a short
  story, and what lies around it is furniture: a newsletter box, a disclaimer), the choice climbs to its
  parents while each has a link density of at most twice ``section_link_density``, is below ``<body>``, not an
  ``<article>``, not clutter by tag, role or name (the unlikely and boilerplate names, a table of contents)
  and adds at most ``CLUTTER_SHARE`` of clutter beside what it holds; the highest block reached within
  ``section_link_density`` itself is kept when the choice holds less than half of it (the way up may pass
  a row whose other cell is a few links: cleaneval-dev final-282, a research article in one table whose
  first part shares a row with its section links, .22 -> .81, no other page moved). A long text split in sibling chunks (a table or a ``<font>`` per
  part, in old layouts) scores in its first chunk only: the rest is the same text. Measured (the six
  corpora): cleaneval-dev .9079 -> .9177 (three pages .42-.57 -> .96-.99), wcxb-dev .8686 -> .8684 (one
  page whose pick lay in the footer already, .34 -> .27), the others unchanged.
* *the rest of the main block* — on a service, product, documentation or listing page (detected type)
  whose chosen block(s) lie inside the page's one ``<main>``/``role=main`` (not an ``<article>``: there
  the rest is the headline, byline and comments) and hold ``main_share`` or more of it (else the
  semantic-main widening above has kept it already), the main block is kept when the rest of it holds a section's
  worth of text (half of ``min_article_chars``) at a link density of at most ``main_rest_link_density``:
  a reference page's other sections, whose cross-references stop the climb of the sections rule
  (measured when it was made: wcxb-dev documentation .9252 -> .9320, one page, a reference of several
  sections .84 -> .99; no other page of the five corpora changed). Off by default since: with the
  sixth corpus (240 more pages beyond articles) and the rules added since, turning it on moved three
  pages, that one up (.84 -> .99) and two of the new corpus down (1.0 -> .91, .77 -> .72), and no
  corpus by more than .0006 — a rule that fitted its page, not the web.
* *thread of posts* — on a forum thread whose chosen block is one of its posts (inside the block of
  the largest group of repeated posts with an author, ``pagetype._repeated_items``), that block is
  kept instead (``thread_widen``): every post is the content, not the longest one. And when the
  chosen block (or a block around it holding little else) has the opening post beside it (the
  question above its answers) or the replies after it (a block named like posts or comments), their
  common block is kept when it holds little else (``OPENING_POST_SLACK``).
* *thin choice* — on a service, product, documentation or listing page whose chosen block is still
  under ``min_article_chars`` (a marketing page of short lines, none a scored paragraph), the page's
  largest block with a link density of at most twice ``section_link_density`` is kept instead when
  it holds at least twice ``min_article_chars`` and four times the chosen block's text.
* *second opinion* (``second_opinion_share``) — on a page that is not an article or a forum (detected
  type), the scorer's choice is checked against a second, independent reading of the page: its text
  outside the furniture (from ``<body>`` down, header, footer, menus, sidebars and blocks named like
  clutter left out; a block that holds none of them and has a link density of at most
  ``second_opinion_link_density`` taken whole, a denser one looked into). When the chosen prose (not a
  choice that is mostly links: a grid of items) holds less than ``second_opinion_share`` of that text's
  unlinked characters, and that text is an article's worth or more, its blocks join the choice: a
  service, product or documentation page is often sections side by side with no wrapper of their own,
  and the best-scored section is one part of the page (an HR firm's service page kept its intro and
  lost its FAQ). A choice the second reading does not see (in the furniture), or one inside an
  ``<article>`` (whose rest is its comments and related lists), is left to the rules above;
  ``--explain`` notes which reading won, with both counts. Measured at 0.4 (the six corpora, reader
  F1): cleaneval-dev .9217 -> .9282, wcxb-dev .8731 -> .8758, wcxb-dev-more .7578 -> .7650, the other
  three unchanged; eleven pages up by .02 to .68 (eight of them from under .35), one down: a front page
  whose truth holds its lists of linked items, which the reader had kept only because its choice was
  undone by the loss guard (.89 -> .39). At 0.3 fewer pages gain; at 0.5 four corpora lose.
* *pictures beside the text* (last, on every page) — a block just before the first chosen block, or
  between two chosen sibling blocks, that shows a picture of the story (not a link to another page,
  not a thumbnail, not a control's face) and holds at most ``PICTURE_BLOCK_MAX_CHARS`` of text (a
  caption), no link but to a picture file, no navigation, form or control, not clutter by tag, role
  or name, joins the choice: a page builder puts each photo in a
  block of its own between the text blocks, and the lead photo just above them.
* *the titles of the kept sections* (last) — a chosen block right after a heading (``<h2>`` to ``<h6>``
  or ``role=heading``, at most ``TITLE_MAX_CHARS``, no link but to a place on the page, not clutter
  by tag, role or name) is that heading's section, and the heading joins it: the scorer weighs
  paragraphs, so an FAQ's answers were chosen without their questions. Measured (the six corpora,
  reader F1): wcxb-dev +.0001, wcxb-dev-more +.0005 with the disclosure titles of ``ignore``, no
  corpus lower; FAQ and section pages up by .02 to .05.

The cleanup below then runs inside the widened block as inside any other. Hidden tab panels and
folded answers (an accordion's, an FAQ's: named ``FOLDED``) inside it are content and shown: without
the page's scripts nothing else can unfold them. Last, a block that repeats the text of a block above
it in another place (a reply's preview of the post it answers, a mobile copy of a section) goes
(``cleanup.drop_copies``).

**Page type** (``pagesieve.analysis.pagetype.detect``, noted in ``--explain`` with its signals) changes the
cleanup: on a forum thread, blocks named like comments or replies are the posts and stay; on
listings, collections, product and documentation pages the link-density cleanup inside the content
is off (the item lists and tables of contents are the content).

**Headline first** (a reader view without the headline fails its user): the page's headline
(``pagesieve.analysis.headline.page_headline``: schema.org ``headline`` / ``og:title``, as the page's own ``<h1>`` — or
one of its first ``<h2>`` — when one says the same; else the page's heading that says what its
``<title>`` says; else its first ``<h1>``. A heading that says what the metadata or the title says wins
over an ``<h1>`` that does not: that one is the site's name, as on a blog whose ``<h1>`` is its name
and whose post's title is an ``<h2>``) becomes the output's one ``<h1>``, put before the kept
content (class ``pagesieve-headline``); the page's own copy inside the content goes, any other
``<h1>`` inside becomes an ``<h2>``. After it, the byline and date from the page's metadata
(``author``, ``article:published_time``) when it has them (class ``pagesieve-byline``).

Everything in ``<body>`` outside the chosen node(s) is removed (ancestors stay, their loose
text is blanked) and the article is set to their deepest common ancestor, before any removal
(so the chain's loss guard protects it). A page where no paragraph scores is left unchanged,
with a note.

The package's modules: ``settings`` (the thresholds), ``scoring`` (each block's counts as a
``BlockScore``, the paragraph scores and the choice), ``widening`` (the widening rules, run in the
order of ``WIDENINGS``), ``cleanup`` (what goes inside the kept blocks, the headline put first),
``common`` (the name patterns and page kinds they share) and ``filter`` (the filter that runs them).
"""

from __future__ import annotations

from pagesieve.filters.main_content.common import BOILERPLATE, HIDDEN, NEGATIVE, POSITIVE, UNLIKELY
from pagesieve.filters.main_content.filter import MainContentFilter
from pagesieve.filters.main_content.settings import MainContentSettings

__all__ = ["BOILERPLATE", "HIDDEN", "NEGATIVE", "POSITIVE", "UNLIKELY", "MainContentFilter", "MainContentSettings"]
