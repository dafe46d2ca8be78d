# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""main_content's block counts in compiled code (``pagesieve.filters.main_content.scoring.stats``):
per element, its text's characters and commas, those inside links, and its own paragraph (its text
outside the children that are blocks), in one walk over libxml2's tree in C. The Python walk read
every text and tail as a new Python string; the numbers are the same (tests/test_pagetable.py), the
text counted by the rules the page table uses (``pagesieve.core._text``)."""

from libc.stdint cimport uintptr_t
from libc.stdlib cimport free, realloc

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport const_xmlChar, xmlNode

from pagesieve.core._text cimport _own_text

ctypedef const_xmlChar* const_xmlChar_p

cetree.import_lxml__etree()

ctypedef struct Block:
    xmlNode* node
    long chars, link, commas, para, para_commas, para_link
    int flags

cdef enum:
    B_IN_LINK = 1  # at or under an <a>
    B_BLOCK_TAG = 2  # a block element's tag
    B_HOLDS_BLOCK = 4  # holds a block element (or one that does)
    B_SKIPPED = 8  # left out, with its subtree


cdef class _BlockWalk:
    """One walk of :func:`block_counts`: the included elements in pre-order and their counts."""

    cdef Block* blocks
    cdef Py_ssize_t count, capacity
    cdef Py_ssize_t* stack
    cdef Py_ssize_t stack_size
    cdef object skip_tags, block_tags, hidden
    cdef dict tag_flags  # tag -> B_SKIPPED | B_BLOCK_TAG, asked of the Python sets once per tag

    def __cinit__(self):
        self.blocks = NULL
        self.stack = NULL
        self.count = self.capacity = self.stack_size = 0

    def __dealloc__(self):
        free(self.blocks)
        free(self.stack)

    cdef int _tag_flags(self, xmlNode* el) except -1:
        """B_SKIPPED and B_BLOCK_TAG of ``el``'s tag, as lxml names it ("{ns}name" with a namespace)."""
        cdef const_xmlChar_p href = cetree._getNs(el)
        tag = (<const char*>el.name).decode("utf-8")
        if href is not NULL:
            tag = "{%s}%s" % ((<const char*>href).decode("utf-8"), tag)
        got = self.tag_flags.get(tag)
        if got is None:
            got = (B_SKIPPED if tag in self.skip_tags else 0) | (B_BLOCK_TAG if tag in self.block_tags else 0) \
                | (B_IN_LINK if tag == "a" else 0)
            self.tag_flags[tag] = got
        return got

    cdef int _included(self, xmlNode* el) except -2:
        """Flags of ``el`` when it is walked, -1 when it is left out (skipped tag or hidden)."""
        cdef int flags = self._tag_flags(el)
        cdef Py_ssize_t address
        if flags & B_SKIPPED:
            return -1
        if self.hidden:
            address = <Py_ssize_t><uintptr_t>el
            if address in self.hidden:
                return -1
        return flags

    cdef xmlNode* _next_included(self, xmlNode* c, int* flags) except? NULL:
        while c is not NULL:
            if c.type == tree.XML_ELEMENT_NODE:
                flags[0] = self._included(c)
                if flags[0] >= 0:
                    return c
            c = c.next
        return NULL

    cdef int _start(self, xmlNode* el, int flags, Py_ssize_t depth) except -1:
        cdef Block* b
        if self.count == self.capacity:
            self.capacity = self.capacity * 2 if self.capacity else 512
            self.blocks = <Block*>realloc(self.blocks, self.capacity * sizeof(Block))
            if self.blocks is NULL:
                raise MemoryError()
        if depth >= self.stack_size:
            self.stack_size = self.stack_size * 2 if self.stack_size else 256
            self.stack = <Py_ssize_t*>realloc(self.stack, self.stack_size * sizeof(Py_ssize_t))
            if self.stack is NULL:
                raise MemoryError()
        b = &self.blocks[self.count]
        b.node = el
        b.chars = b.link = b.commas = b.para = b.para_commas = b.para_link = 0
        if depth > 0 and self.blocks[self.stack[depth - 1]].flags & B_IN_LINK:
            flags |= B_IN_LINK
        b.flags = flags & (B_IN_LINK | B_BLOCK_TAG)
        self.stack[depth] = self.count
        self.count += 1
        return 0

    cdef void _finish(self, Py_ssize_t depth) noexcept:
        """Close the block at ``depth``: its own text, then its share of its parent's counts."""
        cdef Block* b = &self.blocks[self.stack[depth]]
        cdef Block* p
        cdef long n = 0, letters = 0, commas = 0, own_link
        _own_text(b.node, &n, &letters, &commas)
        own_link = n if b.flags & B_IN_LINK else 0
        b.chars += n
        b.para += n
        b.commas += commas
        b.para_commas += commas
        b.link += own_link
        b.para_link += own_link
        if depth == 0:
            return
        p = &self.blocks[self.stack[depth - 1]]
        p.chars += b.chars
        p.link += b.link
        p.commas += b.commas
        if b.flags & (B_BLOCK_TAG | B_HOLDS_BLOCK):
            p.flags |= B_HOLDS_BLOCK
        else:
            p.para += b.chars
            p.para_commas += b.commas
            p.para_link += b.link

    cdef int walk(self, xmlNode* top, int top_flags) except -1:
        cdef xmlNode* node = top
        cdef xmlNode* child
        cdef int flags = 0
        cdef Py_ssize_t depth = 0
        self._start(top, top_flags, 0)
        while True:
            child = self._next_included(node.children, &flags)
            if child is not NULL:
                depth += 1
                self._start(child, flags, depth)
                node = child
                continue
            while True:
                self._finish(depth)
                if node is top:
                    return 0
                child = self._next_included(node.next, &flags)
                if child is not NULL:
                    self._start(child, flags, depth)
                    node = child
                    break
                node = node.parent
                depth -= 1


cdef Py_ssize_t _address(element) except? -1:
    return <Py_ssize_t><uintptr_t>(<cetree._Element?>element)._c_node


def block_counts(body, hidden, skip_tags, block_tags, make):
    """main_content's per-element counts (``scoring.stats``, the same numbers): the elements of
    ``body`` in pre-order, those with a tag in ``skip_tags`` or in ``hidden`` left out with their
    subtrees, and per element ``make(para_chars, chars, link, commas, block, para_commas, para_link)``:
    its own text (``.text`` and its children's tails, whitespace and all) outside its walked children
    that are blocks (a tag in ``block_tags`` or holding one) and inside, characters inside links,
    commas. ``body`` itself must not be left out (the caller checks)."""
    cdef cetree._Element top = body
    cdef _BlockWalk w = _BlockWalk()
    cdef Py_ssize_t i
    cdef Block* b
    w.skip_tags, w.block_tags, w.tag_flags = skip_tags, block_tags, {}
    w.hidden = {_address(h) for h in hidden}
    if top._c_node.type != tree.XML_ELEMENT_NODE:
        return [], {}
    w.walk(top._c_node, w._tag_flags(top._c_node) & ~B_SKIPPED)
    doc = top._doc
    order = []
    st = {}
    for i in range(w.count):
        b = &w.blocks[i]
        el = cetree.elementFactory(doc, b.node)
        order.append(el)
        st[el] = make(b.para, b.chars, b.link, b.commas, bool(b.flags & B_HOLDS_BLOCK), b.para_commas, b.para_link)
    return order, st
