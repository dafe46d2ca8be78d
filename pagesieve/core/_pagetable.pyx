# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The page's text measurement in compiled code: :class:`pagesieve.core.measure.TextMeasure`'s
counts, taken in one walk over libxml2's tree in C and kept in C arrays.

The Python measurement creates a Python object for every element (lxml's proxy), reads every text
and tail as a new Python string and keeps two dicts keyed by the proxies; that walk cost about as
much as parsing and serialising the page. Here the walk follows libxml2's own pointers (lxml's
public C API gives the node under an element proxy), counts the UTF-8 text in place, and keeps the
counts in an array indexed through a hash table keyed by node address.

The rules are the Python measurement's, to the character (a test runs both on corpus pages and
demands equal tables): the text is counted as ``pagesieve.core._text`` says; ``<script>`` and
``<style>`` have no text of their own; ``<script>``, ``<style>``, ``<template>`` and ``<noscript>``
have no link counts and add none to their parents.

Nodes are looked up by address. The table holds the proxy of every element it measured, as the
Python measurement's dicts did with their keys, for two reasons: a removed node stays allocated, so
its memory cannot be reused by a new node that would then be taken for it; and the filters' own
walks over the page, after the measurement, find every element's proxy made already (lxml keeps one
per node while it is referenced). Making them costs about a quarter of the lxml floor; a walk that
must make them all costs that much again, every walk (measured on scrapinghub: 0.22x the floor
for ``list(root.iter())`` on a fresh tree, 0.016x when the proxies exist). ``hold=False`` leaves them
out, for a caller that reads the table without walking the tree in Python.
"""


from libc.stdint cimport uintptr_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memset, strcmp

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport xmlAttr, xmlNode

from pagesieve.core._text cimport _count_str, _own_text

cetree.import_lxml__etree()

from collections.abc import Mapping

from pagesieve.core import dom as _dom

cdef enum:
    F_UNCOUNTED = 1  # no link counts (script, style, template, noscript)
    F_SILENT = 2  # no text of its own (script, style)
    F_LINK = 4  # an <a> with an href

ctypedef struct Entry:
    xmlNode* node
    long chars
    long links
    long link_letters
    long letters
    int flags


cdef inline int _flags_of(xmlNode* el) noexcept:
    """UNCOUNTED / SILENT / LINK for an element (its tag without a namespace, as lxml names it)."""
    cdef const char* name
    cdef xmlAttr* attr
    if cetree._getNs(el) is not NULL:
        return 0
    name = <const char*>el.name
    if name[0] == b"a" and name[1] == 0:
        attr = el.properties
        while attr is not NULL:
            if attr.ns is NULL and strcmp(<const char*>attr.name, b"href") == 0:
                return F_LINK
            attr = attr.next
        return 0
    if strcmp(name, b"script") == 0 or strcmp(name, b"style") == 0:
        return F_UNCOUNTED | F_SILENT
    if strcmp(name, b"template") == 0 or strcmp(name, b"noscript") == 0:
        return F_UNCOUNTED
    return 0


cdef inline xmlNode* _first_element(xmlNode* c) noexcept:
    while c is not NULL and c.type != tree.XML_ELEMENT_NODE:
        c = c.next
    return c


cdef class PageTable:
    """Per element of a page: characters, and (links with href, letters inside links, letters).

    The interface is :class:`pagesieve.core.measure.PyTextMeasure`'s; ``chars`` and ``links`` are
    read-only mappings keyed by element, as the Python measurement's dicts are read."""

    cdef Entry* entries
    cdef Py_ssize_t count, capacity
    cdef xmlNode** keys  # hash table: node address -> index + 1 in ``values``
    cdef Py_ssize_t* values
    cdef Py_ssize_t slots, used
    cdef Py_ssize_t* stack
    cdef Py_ssize_t stack_size
    cdef list _alive  # the proxies of the measured elements (hold=True), else the tops of removed subtrees
    cdef bint _hold
    cdef cetree._Document _doc  # the page's document (to make proxies when the table is iterated)

    def __cinit__(self):
        self.entries = NULL
        self.keys = NULL
        self.values = NULL
        self.stack = NULL
        self.count = self.capacity = self.slots = self.used = self.stack_size = 0
        self._alive = []

    def __dealloc__(self):
        free(self.entries)
        free(self.keys)
        free(self.values)
        free(self.stack)

    def __init__(self, root, bint hold=True):
        self._doc = (<cetree._Element?>root)._doc
        self._hold = hold
        self.measure(root)

    # -- the table ------------------------------------------------------------------
    cdef inline Py_ssize_t _slot(self, xmlNode* node) noexcept:
        """The hash slot of ``node``: where it is, or the empty slot where it would go."""
        cdef uintptr_t h = (<uintptr_t>node >> 4) * <uintptr_t>0x9E3779B97F4A7C15
        cdef Py_ssize_t mask = self.slots - 1
        cdef Py_ssize_t i = <Py_ssize_t>(h >> 20) & mask
        while self.keys[i] is not NULL and self.keys[i] is not node:
            i = (i + 1) & mask
        return i

    cdef inline Py_ssize_t _find(self, xmlNode* node) noexcept:
        """Index of ``node``'s entry, -1 when the table does not know it."""
        if self.slots == 0 or node is NULL:
            return -1
        cdef Py_ssize_t i = self._slot(node)
        return self.values[i] - 1 if self.keys[i] is not NULL else -1

    cdef int _grow_hash(self) except -1:
        cdef Py_ssize_t old = self.slots, i, j
        cdef xmlNode** old_keys = self.keys
        cdef Py_ssize_t* old_values = self.values
        self.slots = old * 2 if old else 1024
        self.keys = <xmlNode**>malloc(self.slots * sizeof(xmlNode*))
        self.values = <Py_ssize_t*>malloc(self.slots * sizeof(Py_ssize_t))
        if self.keys is NULL or self.values is NULL:
            raise MemoryError()
        memset(self.keys, 0, self.slots * sizeof(xmlNode*))
        for i in range(old):
            if old_keys[i] is not NULL:
                j = self._slot(old_keys[i])
                self.keys[j] = old_keys[i]
                self.values[j] = old_values[i]
        free(old_keys)
        free(old_values)
        return 0

    cdef Py_ssize_t _entry(self, xmlNode* node) except -1:
        """Index of ``node``'s entry, made (zeroed) if the table does not know it yet."""
        cdef Py_ssize_t i
        if (self.used + 1) * 2 > self.slots:
            self._grow_hash()
        i = self._slot(node)
        if self.keys[i] is not NULL:
            return self.values[i] - 1
        if self.count == self.capacity:
            self.capacity = self.capacity * 2 if self.capacity else 512
            self.entries = <Entry*>realloc(self.entries, self.capacity * sizeof(Entry))
            if self.entries is NULL:
                raise MemoryError()
        self.keys[i] = node
        self.values[i] = self.count + 1
        self.used += 1
        self.entries[self.count].node = node
        self.count += 1
        return self.count - 1

    cdef int _push(self, Py_ssize_t depth, Py_ssize_t index) except -1:
        if depth >= self.stack_size:
            self.stack_size = self.stack_size * 2 if self.stack_size else 256
            self.stack = <Py_ssize_t*>realloc(self.stack, self.stack_size * sizeof(Py_ssize_t))
            if self.stack is NULL:
                raise MemoryError()
        self.stack[depth] = index
        return 0

    cdef Py_ssize_t _start(self, xmlNode* el, Py_ssize_t depth, cetree._Document doc) except -1:
        """Open ``el``'s entry (counts zeroed) at ``depth`` of the walk; hold its proxy if ``doc``."""
        if doc is not None:
            self._alive.append(cetree.elementFactory(doc, el))
        cdef Py_ssize_t i = self._entry(el)
        cdef Entry* e = &self.entries[i]
        e.chars = e.links = e.link_letters = e.letters = 0
        e.flags = _flags_of(el)
        self._push(depth, i)
        return i

    cdef void _finish(self, Py_ssize_t depth) noexcept:
        """Close the entry at ``depth``: its own text, its link, and its share of its parent's counts."""
        cdef Entry* e = &self.entries[self.stack[depth]]
        cdef Entry* p
        cdef long n = 0, l = 0
        _own_text(e.node, &n, &l, NULL)
        if not e.flags & F_SILENT:
            e.chars += n
        if not e.flags & F_UNCOUNTED:
            e.letters += l
            if e.flags & F_LINK:
                e.links += 1
                e.link_letters = e.letters
        if depth > 0:
            p = &self.entries[self.stack[depth - 1]]
            p.chars += e.chars
            if not e.flags & F_UNCOUNTED:
                p.links += e.links
                p.link_letters += e.link_letters
                p.letters += e.letters

    cdef long _measure(self, xmlNode* top, cetree._Document doc) except -1:
        """Measure ``top``'s subtree (again), children before parents; ``top``'s characters. ``doc``:
        the subtree's document, to hold every element's proxy (None: hold none)."""
        cdef xmlNode* node = top
        cdef xmlNode* child
        cdef Py_ssize_t depth = 0
        cdef Py_ssize_t top_index = self._start(top, 0, doc)
        while True:
            child = _first_element(node.children)
            if child is not NULL:
                depth += 1
                self._start(child, depth, doc)
                node = child
                continue
            while True:  # node has no element below it left to measure: close it and its finished parents
                self._finish(depth)
                if node is top:
                    return self.entries[top_index].chars
                child = _first_element(node.next)
                if child is not NULL:
                    self._start(child, depth, doc)
                    node = child
                    break
                node = node.parent
                depth -= 1

    # -- reading --------------------------------------------------------------------
    cdef inline Py_ssize_t _index(self, node) noexcept:
        if not isinstance(node, cetree._Element):
            return -1
        return self._find((<cetree._Element>node)._c_node)

    def measure(self, top) -> int:
        """Measure ``top``'s subtree (again), store every element's counts; ``top``'s text count."""
        cdef xmlNode* c_top = (<cetree._Element?>top)._c_node
        if c_top.type != tree.XML_ELEMENT_NODE:
            return 0
        return self._measure(c_top, self._doc_of(top))

    cdef cetree._Document _doc_of(self, node):
        """``node``'s document when the table holds proxies, else None."""
        return (<cetree._Element>node)._doc if self._hold else None

    def text_len(self, node) -> int:
        """``dom.text_len(node)``, from the measurement when it knows the node."""
        cdef Py_ssize_t i = self._index(node)
        if i < 0:
            return _dom.text_len(node)
        return self.entries[i].chars

    def link_stats(self, node):
        """(links with href, letters inside links, letters) under ``node``; None for UNCOUNTED ones."""
        cdef Py_ssize_t i = self._index(node)
        if i < 0 or self.entries[i].flags & F_UNCOUNTED:
            return None
        cdef Entry* e = &self.entries[i]
        return (e.links, e.link_letters, e.letters)

    def chars_of(self, node):
        """``node``'s characters, None when the table does not know it."""
        cdef Py_ssize_t i = self._index(node)
        return None if i < 0 else self.entries[i].chars

    @property
    def chars(self):
        """element -> characters, as a read-only mapping."""
        return _Column(self, False)

    @property
    def links(self):
        """element -> (links with href, letters inside links, letters), UNCOUNTED elements absent."""
        return _Column(self, True)

    def _elements(self, bint linked):
        """Every element the table knows (``linked``: those with link counts), as proxies."""
        cdef Py_ssize_t i
        cdef xmlNode* node
        out = []
        for i in range(self.count):
            if linked and self.entries[i].flags & F_UNCOUNTED:
                continue
            node = self.entries[i].node
            if node.doc is self._doc._c_doc:
                out.append(cetree.elementFactory(self._doc, node))
        return out

    # -- kept current by FilterContext ----------------------------------------------
    cdef void _add(self, xmlNode* parent, long delta) noexcept:
        """Add ``delta`` characters to ``parent`` and its ancestors."""
        cdef Py_ssize_t i
        if delta == 0:
            return
        while parent is not NULL and parent.type == tree.XML_ELEMENT_NODE:
            i = self._find(parent)
            if i >= 0:
                self.entries[i].chars += delta
            parent = parent.parent

    cdef void _add_links(self, xmlNode* parent, long links, long link_letters, long letters) noexcept:
        """Add link counts to ``parent`` and up: up to an UNCOUNTED element (it adds nothing to its
        parent); at and above a link with href every letter is a link letter."""
        cdef Py_ssize_t i
        cdef Entry* e
        cdef bint inside = False
        if not (links or link_letters or letters):
            return
        while parent is not NULL and parent.type == tree.XML_ELEMENT_NODE:
            if _flags_of(parent) & F_UNCOUNTED:
                return
            i = self._find(parent)
            if i >= 0:
                e = &self.entries[i]
                e.links += links
                e.letters += letters
                e.link_letters += letters if inside else link_letters
                if not inside and _flags_of(parent) & F_LINK:
                    e.link_letters = e.letters
                    inside = True
            parent = parent.parent

    cdef void _stats(self, xmlNode* node, long* out) noexcept:
        cdef Py_ssize_t i = self._find(node)
        out[0] = out[1] = out[2] = 0
        if i >= 0 and not self.entries[i].flags & F_UNCOUNTED:
            out[0] = self.entries[i].links
            out[1] = self.entries[i].link_letters
            out[2] = self.entries[i].letters

    cdef long _chars(self, xmlNode* node) noexcept:
        cdef Py_ssize_t i = self._find(node)
        return self.entries[i].chars if i >= 0 else 0

    def removed(self, node, parent, ancestors=None) -> None:
        """``node`` left ``parent`` (its tail stayed with ``parent``). ``ancestors`` is accepted for the
        Python measurement's interface; the walk up reads libxml2's parent pointers instead."""
        cdef xmlNode* c_node = (<cetree._Element?>node)._c_node
        cdef xmlNode* c_parent = (<cetree._Element?>parent)._c_node
        cdef long stats[3]
        if not self._hold:
            self._alive.append(node)
        self._add(c_parent, -self._chars(c_node))
        self._stats(c_node, stats)
        self._add_links(c_parent, -stats[0], -stats[1], -stats[2])

    def inserted(self, node, parent) -> None:
        """``node`` (and its tail) entered ``parent``."""
        cdef xmlNode* c_node = (<cetree._Element?>node)._c_node
        cdef xmlNode* c_parent = (<cetree._Element?>parent)._c_node
        cdef long n = 0, tail_chars = 0, tail_letters = 0
        cdef long stats[3]
        stats[0] = stats[1] = stats[2] = 0
        if c_node.type == tree.XML_ELEMENT_NODE:
            n = self._measure(c_node, self._doc_of(node))
            self._stats(c_node, stats)
        _count_str(node.tail, &tail_chars, &tail_letters)
        if not _flags_of(c_parent) & F_SILENT:
            n += tail_chars
        self._add(c_parent, n)
        self._add_links(c_parent, stats[0], stats[1], stats[2] + tail_letters)

    def replaced(self, old, new, parent) -> None:
        """``new`` took ``old``'s place (and tail) in ``parent``."""
        cdef xmlNode* c_old = (<cetree._Element?>old)._c_node
        cdef xmlNode* c_new = (<cetree._Element?>new)._c_node
        cdef xmlNode* c_parent = (<cetree._Element?>parent)._c_node
        cdef long before[3]
        cdef long after[3]
        cdef long n = 0
        if not self._hold:
            self._alive.append(old)
        self._stats(c_old, before)
        after[0] = after[1] = after[2] = 0
        if c_new.type == tree.XML_ELEMENT_NODE:
            n = self._measure(c_new, self._doc_of(new))
            self._stats(c_new, after)
        self._add(c_parent, n - self._chars(c_old))
        self._add_links(c_parent, after[0] - before[0], after[1] - before[1], after[2] - before[2])

    def text_set(self, node, old, new, bint tail) -> None:
        """``node``'s text (or tail) changed from ``old`` to ``new``."""
        cdef xmlNode* c_node = (<cetree._Element?>node)._c_node
        cdef xmlNode* owner = c_node.parent if tail else c_node
        cdef long new_chars = 0, new_letters = 0, old_chars = 0, old_letters = 0
        cdef int flags
        if owner is NULL or owner.type != tree.XML_ELEMENT_NODE:
            return
        if not tail and c_node.type != tree.XML_ELEMENT_NODE:
            return
        _count_str(new, &new_chars, &new_letters)
        _count_str(old, &old_chars, &old_letters)
        flags = _flags_of(owner)
        if not flags & F_SILENT:
            self._add(owner, new_chars - old_chars)
        if not flags & F_UNCOUNTED:
            self._add_links(owner, 0, 0, new_letters - old_letters)

    def href_set(self, node, bint had, bint has) -> None:
        """A link gained or lost its ``href`` (it counts as a link, its letters as link letters)."""
        cdef xmlNode* c_node = (<cetree._Element?>node)._c_node
        cdef xmlNode* c
        cdef Py_ssize_t i = self._find(c_node), j
        cdef Entry* e
        cdef long links, link_letters, delta_links, delta_link_letters
        if had == has or i < 0 or c_node.type != tree.XML_ELEMENT_NODE or cetree._getNs(c_node) is not NULL \
                or strcmp(<const char*>c_node.name, b"a") != 0:
            return
        e = &self.entries[i]
        if has:
            links, link_letters = e.links + 1, e.letters
            e.flags |= F_LINK
        else:
            links = e.links - 1
            link_letters = 0
            c = c_node.children
            while c is not NULL:
                j = self._find(c) if c.type == tree.XML_ELEMENT_NODE else -1
                if j >= 0 and not self.entries[j].flags & F_UNCOUNTED:
                    link_letters += self.entries[j].link_letters
                c = c.next
            e.flags &= ~F_LINK
        delta_links, delta_link_letters = links - e.links, link_letters - e.link_letters
        e.links, e.link_letters = links, link_letters
        if c_node.parent is not NULL and c_node.parent.type == tree.XML_ELEMENT_NODE \
                and not _flags_of(c_node.parent) & F_UNCOUNTED:
            self._add_links(c_node.parent, delta_links, delta_link_letters, 0)

    def copied(self, original, copy) -> None:
        """``copy`` (a deep copy of ``original``) took its place: same counts, node for node."""
        cdef Py_ssize_t i, j
        for a, b in zip(original.iter(), copy.iter()):
            i = self._index(a)
            if i < 0 or not isinstance(b, cetree._Element):
                continue
            j = self._entry((<cetree._Element>b)._c_node)
            i = self._index(a)  # the entries may have moved
            self.entries[j].chars = self.entries[i].chars
            self.entries[j].links = self.entries[i].links
            self.entries[j].link_letters = self.entries[i].link_letters
            self.entries[j].letters = self.entries[i].letters
            self.entries[j].flags = self.entries[i].flags


cdef class _Column:
    """One column of a :class:`PageTable` as a read-only mapping keyed by element (``in``, ``[]``,
    ``get``; iteration and ``==`` make a proxy per element, for tests)."""

    cdef PageTable table
    cdef bint linked

    def __cinit__(self, PageTable table, bint linked):
        self.table = table
        self.linked = linked

    cdef inline Py_ssize_t _index(self, key) noexcept:
        cdef Py_ssize_t i = self.table._index(key)
        if i >= 0 and self.linked and self.table.entries[i].flags & F_UNCOUNTED:
            return -1
        return i

    cdef object _value(self, Py_ssize_t i):
        cdef Entry* e = &self.table.entries[i]
        if self.linked:
            return (e.links, e.link_letters, e.letters)
        return e.chars

    def __contains__(self, key):
        return self._index(key) >= 0

    def __getitem__(self, key):
        cdef Py_ssize_t i = self._index(key)
        if i < 0:
            raise KeyError(key)
        return self._value(i)

    def get(self, key, default=None):
        cdef Py_ssize_t i = self._index(key)
        return default if i < 0 else self._value(i)

    def __iter__(self):
        return iter(self.table._elements(self.linked))

    def __len__(self):
        return len(self.table._elements(self.linked))

    def keys(self):
        return self.table._elements(self.linked)

    def items(self):
        return [(el, self[el]) for el in self.table._elements(self.linked)]

    def __eq__(self, other):
        """Equal to a mapping with the same elements and counts (a list of counts equals its tuple)."""
        if not isinstance(other, Mapping):
            return NotImplemented
        mine = self.items()
        if len(mine) != len(other):
            return False
        for el, value in mine:
            theirs = other.get(el)
            if theirs is None or (tuple(theirs) if isinstance(theirs, list) else theirs) != value:
                return False
        return True


Mapping.register(_Column)
