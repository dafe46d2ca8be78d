# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The article filter's paragraph sums (``filters.article.paragraph_sums``) in one walk in C, equal to
its Python walk's, element for element and in the same order (tests/test_pagetable.py runs both on
corpus pages).

The Python walk reads every text and tail of the page as a new string and collapses its whitespace
(``" ".join(text.split())``) to count it. Here each run of text nodes is counted in place: its
characters that ``str.split()`` does not split at, plus one space between each two of its words, which
is the length of the collapsed string. Element names are turned into Python strings once per distinct
name (libxml2 interns them) to be looked up in the tag sets.
"""

from cpython.unicode cimport Py_UNICODE_ISSPACE
from libc.stdint cimport uintptr_t
from libc.stdlib cimport free, realloc

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport xmlNode

cetree.import_lxml__etree()

cdef enum:
    T_PARAGRAPH = 1
    T_BLOCK = 2
    T_UNCOUNTED = 4
    T_BR = 8


ctypedef struct Frame:
    xmlNode* node
    xmlNode* cur  # the next child to read
    long own  # the element's own characters so far (text outside nested blocks)
    long paragraphs
    long run_chars, run_words  # the run of text nodes being read
    bint in_word, reading, has_br
    int flags
    Py_ssize_t index  # the element's place in document order


cdef inline void _feed(Frame* f, const unsigned char* s) noexcept:
    """Add the UTF-8 text ``s`` to the frame's run of text: its non-whitespace characters and words."""
    cdef unsigned char c
    cdef Py_UCS4 cp
    while True:
        c = s[0]
        if c == 0:
            return
        if c < 0x80:
            cp = c
            s += 1
        elif c < 0xE0 and (s[1] & 0xC0) == 0x80:
            cp = ((c & 0x1F) << 6) | (s[1] & 0x3F)
            s += 2
        elif c < 0xF0 and (s[1] & 0xC0) == 0x80 and (s[2] & 0xC0) == 0x80:
            cp = ((c & 0x0F) << 12) | ((s[1] & 0x3F) << 6) | (s[2] & 0x3F)
            s += 3
        elif (s[1] & 0xC0) == 0x80 and (s[2] & 0xC0) == 0x80 and (s[3] & 0xC0) == 0x80:
            cp = ((c & 0x07) << 18) | ((s[1] & 0x3F) << 12) | ((s[2] & 0x3F) << 6) | (s[3] & 0x3F)
            s += 4
        else:  # libxml2 holds valid UTF-8: this only keeps a broken sequence from reading past the end
            cp = 0xFFFD
            s += 1
        if Py_UNICODE_ISSPACE(cp):
            f.in_word = False
        else:
            f.run_chars += 1
            if not f.in_word:
                f.run_words += 1
                f.in_word = True


cdef inline void _end_run(Frame* f) noexcept:
    """The run of text ends: its collapsed length joins the element's own characters."""
    if f.run_words:
        f.own += f.run_chars + f.run_words - 1
    f.run_chars = f.run_words = 0
    f.in_word = False


cdef class _Walk:
    cdef Frame* frames
    cdef Py_ssize_t depth, size
    cdef xmlNode** nodes  # elements in document order
    cdef long* sums  # their paragraph characters
    cdef Py_ssize_t count, capacity
    cdef dict flags_of  # name pointer -> flags

    def __cinit__(self):
        self.frames = NULL
        self.nodes = NULL
        self.sums = NULL
        self.depth = self.size = self.count = self.capacity = 0
        self.flags_of = {}

    def __dealloc__(self):
        free(self.frames)
        free(self.nodes)
        free(self.sums)

    cdef int _flags(self, xmlNode* node, frozenset paragraph_tags, frozenset blocks,
                    frozenset uncounted) except -1:
        cdef object key
        cdef int flags
        if cetree._getNs(node) is not NULL:  # "{ns}name": in none of the sets of HTML names
            name = cetree.namespacedName(node)
        else:
            key = <uintptr_t>node.name
            got = self.flags_of.get(key)
            if got is not None:
                return got
            name = cetree.namespacedName(node)
        flags = ((T_PARAGRAPH if name in paragraph_tags else 0) | (T_BLOCK if name in blocks else 0)
                 | (T_UNCOUNTED if name in uncounted else 0) | (T_BR if name == "br" else 0))
        if cetree._getNs(node) is NULL:
            self.flags_of[<uintptr_t>node.name] = flags
        return flags

    cdef int _push(self, xmlNode* node, int flags) except -1:
        cdef Frame* f
        if self.depth == self.size:
            self.size = self.size * 2 if self.size else 64
            self.frames = <Frame*>realloc(self.frames, self.size * sizeof(Frame))
            if self.frames is NULL:
                raise MemoryError()
        if self.count == self.capacity:
            self.capacity = self.capacity * 2 if self.capacity else 1024
            self.nodes = <xmlNode**>realloc(self.nodes, self.capacity * sizeof(xmlNode*))
            self.sums = <long*>realloc(self.sums, self.capacity * sizeof(long))
            if self.nodes is NULL or self.sums is NULL:
                raise MemoryError()
        f = &self.frames[self.depth]
        f.node, f.cur = node, node.children
        f.own = f.paragraphs = f.run_chars = f.run_words = 0
        f.in_word = f.has_br = False
        f.reading = not flags & T_UNCOUNTED  # a script's or a style's text is never read
        f.flags = flags
        f.index = self.count
        self.nodes[self.count] = node
        self.sums[self.count] = 0
        self.count += 1
        self.depth += 1
        return 0


def paragraph_sums(top, frozenset paragraph_tags, frozenset blocks, frozenset uncounted, bint br_paragraphs):
    """(element, paragraph characters) for every element under ``top`` (itself included) with any, in
    document order: ``filters.article.paragraph_sums`` with its tag sets (``uncounted``: elements whose
    text counts nothing, their descendants still summed)."""
    cdef xmlNode* c_top = (<cetree._Element?>top)._c_node
    cdef cetree._Document doc = (<cetree._Element>top)._doc
    cdef _Walk w = _Walk()
    cdef Frame* f
    cdef Frame* p
    cdef xmlNode* c
    cdef long own, paragraphs
    cdef Py_ssize_t i
    w._push(c_top, w._flags(c_top, paragraph_tags, blocks, uncounted))
    while w.depth:
        f = &w.frames[w.depth - 1]
        c = f.cur
        if c is not NULL:
            f.cur = c.next
            if c.type == tree.XML_TEXT_NODE or c.type == tree.XML_CDATA_SECTION_NODE:
                if f.reading and c.content is not NULL:
                    _feed(f, <const unsigned char*>c.content)
            elif c.type != tree.XML_XINCLUDE_START and c.type != tree.XML_XINCLUDE_END:
                _end_run(f)
                # The tail of an element, comment, PI or entity is read (none of an uncounted element's text).
                f.reading = cetree._isElement(c) and not f.flags & T_UNCOUNTED
                if c.type == tree.XML_ELEMENT_NODE:
                    w._push(c, w._flags(c, paragraph_tags, blocks, uncounted))  # f may move: not used again
            continue
        _end_run(f)  # every child read: the element is done
        own, paragraphs = f.own, f.paragraphs
        if f.flags & T_UNCOUNTED:
            own = 0
        else:
            if br_paragraphs and f.has_br:
                paragraphs += own
            w.sums[f.index] = paragraphs
        w.depth -= 1
        if w.depth:
            p = &w.frames[w.depth - 1]
            if f.flags & T_PARAGRAPH:
                p.paragraphs += own
            if f.flags & T_BR:
                p.has_br = True
            elif not f.flags & T_BLOCK:
                p.own += own
    out = []
    for i in range(w.count):
        if w.sums[i]:
            out.append((cetree.elementFactory(doc, w.nodes[i]), w.sums[i]))
    return out
