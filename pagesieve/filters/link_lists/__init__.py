"""``link_lists``: remove blocks that are mostly links (the paper's link list remover).

Source: Agarwal, Chheda, Shah & Narvekar, "Content extraction using Document Object Model and
Natural Language Processing for web", "link list remover" (the paragraph after the
advertisement remover): a *link list* is a table cell whose ratio of the number of links to the
number of non-linked words is greater than the *link/text removal ratio*; non-linked words are
the letters outside links divided by the average characters per word ("preset as say 5"). The
cell's content is removed, optionally the cell itself.

Here the same test applies to the cells' modern equivalents (``ul``/``ol``/``menu``/``dl``,
``nav``, ``aside``, ``div``). Blocks are examined top-down in document order: a block that is a
link list is removed whole; otherwise its inner blocks are examined. Letters are letters and
digits (punctuation such as the ``|`` between menu items is not a word).

Safety (pagesieve's additions, so the filter cooperates with the chain's article-loss guard):

* a cell of a data table (``dom.is_data_table``) is never a link list;
* the detected article (``ctx.article``) and its ancestors are never removed; inside it, a block is
  removed only when its link text outweighs its other text (``article_link_share``);
* a block holding ``keep_text`` or more letters outside links is never removed as a whole (before an
  article is known, a wrapper holding both the menu and the story must not go); its inner blocks
  are examined instead.

Main content that is link-dense (product grids, listings, forum threads, tables of
contents were removed as link lists) is recognised by general signals, never by site names:

* **the page's main block** — before an article is known, the page's semantic main content (one
  ``<main>`` or ``role=main``, else one ``<article>`` or ``itemprop=articleBody``) stands in for it:
  it and its ancestors are never removed, and inside it only blocks whose link text outweighs
  their other text go (``article_link_share``);
* **size** — a block holding ``page_share`` or more of the page's letters is the page, not a list
  on it: its inner blocks are examined instead;
* **repeated items** — a block whose children are ``min_items`` or more siblings of the same tag
  and class, most of which (``item_text_share``) carry text of their own outside links
  (``item_letters``: a price, a teaser, a date, a post) or a price (a currency and an amount, linked
  or not) is a grid of items — products, stories,
  posts — and is kept whole; a block holding such a grid is not removed whole either. A menu's
  items are links only, so a menu is never such a grid. Items that are whole links are *cards*
  when they are long (``card_letters`` on average) and the grid holds ``grid_share`` of the page's
  letters (the grid of a shop's category page; not a short "related" list beside a story). In the
  page's grid (``grid_share`` of its letters, or inside its main block) of alike items (none above
  ``item_max_share`` of its letters), whether link-dense as a whole or not, no item is removed whole,
  nor a block wrapping a whole item or ``ITEM_CORE_SHARE`` of it (a listing's name, tagline and topic
  links): a product card of two links and a price is link-dense on its own (the smaller blocks inside
  an item are still tested: a post's reply links, the topic links). Of an item with text of its own,
  the blocks around its longest text without links (a short post's body among its author's card and
  reaction links; a card's teaser or price), around ``ITEM_CORE_SHARE`` of its letters outside links,
  and around its first heading (a post's head: title, score and author links) are not removed whole
  either. In a grid of items of unlike size inside the main block (a river of quick posts of several
  paragraphs beside headline cards), or of ``<article>`` items (a thread's posts, one long among short
  ones), the items with text of their own are protected so; outside the main block, ``<div>`` items
  of unlike size are the page's layout columns;
* **threads** — in a grid of items with text of their own, the items nested in its items that are of
  their kind (``li.comment > ul > li.comment``: a thread's replies) are protected as its items are,
  with the blocks between them and the grid: a reply of one line under its title, score and author
  links is link-dense on its own. A menu's nested entries are links only and never form the grid;
* **prices** — a block of which ``PRICED_SHARE`` of the links show a price in their text is a shelf of
  product cards that are whole links ("MacBook Air From $1099 Buy"); outside page furniture, so is a
  block whose text shows ``PRICED_SHARE`` prices or more per place its links lead to (an address
  less its ``#`` part): a picture link, a name link and a "Learn more" to one product beside its
  price. A link farm's links and places show no price;
* **prose** — a block holding a paragraph (``<p>``, or a ``<div>``/``<blockquote>``/``<td>``/``<dd>``
  whose own run of text — its text, its inline children's, not nested blocks' — has them: a post
  written with ``<br>``) with ``prose_letters`` or more letters outside links, or with
  ``SHORT_PROSE_LETTERS`` and two whole sentences (a game's blurb), is not removed whole (a short post
  in a column beside its category list: the column is link-dense, the post is not): its inner blocks
  are tested instead. Inside the article a paragraph counts also in a block only named like furniture
  (a ``game_header_ctn``: the article's own head), not in a landmark by its markup;
* **cards** — a paragraph (``<p>``) of ``card_prose_letters`` or more letters inside a link, or made
  of one such link (a story card's teaser linked to the story, ``<p><a>Apple has released ...</a></p>``),
  is read as text, not as the link's label: a row of service cards, each one ``<a>`` around a heading
  and a teaser, is not a link list (a menu's short descriptions still are link labels). Outside page
  furniture so is a shorter paragraph in a link that is one statement (``CARD_SENTENCE_LETTERS``,
  ending in "."): a feature card's "Run and debug your code without leaving your editor.";
* **headline** — a block holding the page's headline (a heading ``<h1>``–``<h6>`` that says what the
  page's schema.org headline, ``og:title`` or ``<title>`` says) is not removed whole: a short post
  under its heading, among its edit, tag and share links, is the page's content; and a short block
  (``byline_letters``) beside the headline (the block just before it or one of the next two, at its
  level or one of its two nearest ancestors' levels) whose text outside links has a year or a time,
  or that holds a ``<time>`` element, is its byline ("By <a>author</a> · Nov 9, 2012 1:50 pm · <a>12
  comments</a>") and stays, unless it is navigation or in a landmark by its markup; one named like
  page furniture only when it is the headline's own neighbour (a post's "entry-header", not a
  footer's "© 2012" further down);
* **gallery** — a block whose links each show a picture and open a picture file (the full-size
  picture of a thumbnail), with no words of their own, is the story's gallery: its links lead to
  pictures, not to other pages; and a block that holds one of the story's pictures (no side declared
  under 100 px) linked, without words, to its own full-size file is that picture, whatever share
  buttons stand beside it ("Pin it"): it stays; so does a block of three links or fewer and no other
  words that holds such a picture outside every link and not beside one (a product's photos under
  its breadcrumb; the icon before a link's name is the link's);
* **table of contents** — inside the main block, a list whose links mostly (``toc_share``) lead to
  places on the same page (``#…``) or to the pages under it (``/docs/auth`` → ``/docs/auth/apple``:
  a documentation section's index of its sub-pages, a category's list of its items) is the
  content's own table of contents. The site's root is above every page, so a page at ``/`` has no
  pages under it by this rule.

* **the page itself** — when the link lists outside page furniture hold ``min_rest`` letters or more
  and removing them would leave fewer than that outside furniture, the lists are the page (a
  directory, a page of bookmarks, a sitemap): they stay, and only the furniture's lists go. Without
  this a page of links came back empty. Measured on the five corpora: cleaneval recall .99083 ->
  .99128 (its page of bookmarks, final-366, .93 -> .995), no precision lower.

None of these applies to a block in page furniture: ``<nav>``, ``<header>``, ``<footer>`` (not
those of an ``<article>`` or ``<main>``: its own head and foot), ``<aside>``, the
navigation/banner/contentinfo/complementary roles, or blocks named like menus, sidebars, footers or
related lists (``FURNITURE``; not a block holding ``page_share`` of the page's letters).

The package's modules: ``settings`` (the ratio and the bounds), ``measures`` (links and letters per
element, text outside links), ``items`` (grids of items, priced shelves, cards and prose),
``page_parts`` (the headline, its byline, the pages under the page) and ``filter`` (the walk).
"""

from __future__ import annotations

from pagesieve.filters.link_lists.filter import LinkListFilter
from pagesieve.filters.link_lists.settings import LinkListSettings

__all__ = ["LinkListFilter", "LinkListSettings"]
