"""The settings of ``link_lists``: the paper's link/text removal ratio and the bounds of the safety rules."""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.core.settings import setting


@dataclass(frozen=True)
class LinkListSettings:
    """The link/text removal ratio and where it applies (the paper's "Advanced Settings")."""

    # Sources: Links per non-linked word above which a block is a link list (the paper's link/text removal ratio; the
    # paper leaves the value to the user).
    ratio: float = setting(0.35, "A block with more links than this per word of ordinary text is a list of links.",
                           minimum=0, maximum=100, group="advanced", scope="user")
    # Sources: Average characters per word: non-linked words = letters outside links / this (paper: "preset as say
    # 5").
    chars_per_word: float = setting(5.0, "Average characters per word, used to count the words outside links.", minimum=1, maximum=50, group="advanced", scope="user")
    # Sources: A block needs at least this many links to be a link list (pagesieve: a lone link is not a list; the
    # paper has no minimum, i.e. 1).
    min_links: int = setting(2, "A block needs at least this many links to count as a list of links (a lone link is "
                                "not a list).",
                             minimum=1, maximum=1000, group="advanced", scope="user")
    tags: tuple[str, ...] = setting(("td", "ul", "ol", "menu", "dl", "nav", "aside", "div"),
                                    "Blocks tested: table cells, lists, menus and the boxes today's layouts use in their place.",
                                    group="advanced", scope="preset")
    # Sources: Remove a link-list table cell itself, not only its content (paper: optional; keeping the cell keeps the
    # table's grid).
    remove_cells: bool = setting(False, "Remove a table cell that is a list of links itself, not only what it holds "
                                        "(keeping the cell keeps the table's grid).", group="advanced", scope="user")
    # Sources: A block with at least this many letters outside links is never removed whole (its inner blocks are
    # tested instead); the paper's article-size threshold (500 characters, article detection).
    keep_text: int = setting(500, "A block with at least this many letters outside links is never removed whole; the "
                                  "parts inside it are judged one by one.", minimum=0, group="advanced", scope="user")
    # Sources: Inside the detected article a block is removed only when more than this fraction of its letters are
    # link text (pagesieve's guard: blocks that hold mostly text stay).
    article_link_share: float = setting(0.5, "Inside the article, a block is removed only when more than this share "
                                             "of its letters are link text.",
                                        minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: A block holding at least this share of the page's letters is the page, not a list on it: never removed
    # whole (pagesieve: listing pages whose whole wrapper is link-dense).
    page_share: float = setting(0.5, "A block holding at least this share of the page's letters is the page itself, "
                                     "not a list on it: never removed whole.", minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: Repeated sibling items (same tag and class) that make a block a grid of items (products, stories,
    # posts), kept whole when most carry their own text (pagesieve).
    min_items: int = setting(4, "At least this many repeated items (products, stories, posts) make a grid that is "
                                "kept whole when most items have text of their own.", minimum=2, maximum=1000, group="advanced", scope="user")
    item_letters: int = setting(8, "Letters outside links an item needs to carry text of its own (a price with "
                                   "its currency, a date, a teaser; a menu item has none).", minimum=1,
                                group="advanced", scope="user")
    item_text_share: float = setting(0.5, "Share of a grid's items that must carry text of their own.", minimum=0,
                                     maximum=1, group="advanced", scope="user")
    item_max_share: float = setting(0.25, "A grid of rows (a <tbody>) is kept as one only when no row holds more than this "
                                          "share of its letters (a list of 100 books, not a layout table's few rows).",
                                    minimum=0, maximum=1, group="advanced", scope="user")
    card_letters: int = setting(40, "Items whose text is all link text are still cards (products, stories) when "
                                    "they average at least this many letters (a menu item is a word or two) ...",
                                minimum=1, group="advanced", scope="user")
    grid_share: float = setting(0.2, "... and together hold at least this share of the page's letters (the grid "
                                     "is the page's content, not a list of related links beside it).",
                                minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: A block holding a paragraph (<p>) with at least this many letters outside links is not removed whole:
    # its inner blocks are tested instead (pagesieve: a short post beside a long category list).
    prose_letters: int = setting(200, "A block holding a paragraph with at least this many letters outside links is "
                                      "not removed whole; the parts inside it are judged one by one.", minimum=1,
                                 group="advanced", scope="user")
    # Sources: A paragraph (<p>) of at least this many letters inside a link is read as text, not as the link's label:
    # cards that are whole links, a heading and a teaser (pagesieve). 0: every letter in a link is link
    # text.
    card_prose_letters: int = setting(80, "A paragraph of at least this many letters inside a link reads as text, not"
                                          " as the link's name (cards made of one link with a heading and a teaser). "
                                          "0: every letter in a link is link text.",
                                      minimum=0, group="advanced", scope="user")
    # Sources: A block beside the page's headline with at most this many letters, whose text outside links holds a
    # year or a time, is the byline and stays (pagesieve).
    byline_letters: int = setting(150, "A short block beside the headline, with at most this many letters and a date "
                                       "or time outside links, is the byline and stays.", minimum=0, group="advanced", scope="user")
    # Sources: Link lists outside page furniture stay when removing them would leave fewer than this many letters of
    # the page outside furniture (and they hold at least as many): they are the page (a directory, bookmarks, a
    # sitemap, a front page of headlines). 0: never. The paper's article size (500 characters).
    min_rest: int = setting(500, "Lists of links stay when removing them would leave fewer than this many letters "
                                 "outside menus and footers: they are the page (a directory, bookmarks, a front page "
                                 "of headlines). 0: never.",
                            minimum=0, group="advanced", scope="user")
    toc_share: float = setting(0.6, "Inside the main block, a list whose links lead to places on the same page "
                                    "(#...) or to pages under it (/docs/auth -> /docs/auth/apple) at least this "
                                    "often is the content's table of contents and stays.",
                               minimum=0, maximum=1, group="advanced", scope="user")
