# cython: language_level=3
"""Text counting shared by the compiled modules of pagesieve.core (_pagetable, _blocks), inlined into
each: the rules of pagesieve.core.measure to the character. A character is counted unless
``str.split()`` splits at it; letters are ``str.isalnum``'s (``[^\\W_]``), asked of CPython's own
tables; an element's text is its ``.text`` and its children's ``.tail`` as lxml reads them."""

from cpython.unicode cimport Py_UNICODE_ISALNUM, Py_UNICODE_ISSPACE

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport xmlNode


# ASCII, by code: bit 1 = not str.split()'s whitespace (\t\n\v\f\r, \x1c-\x1f, space), bit 2 = a letter or
# digit ([0-9A-Za-z]), bit 4 = the comma; written out in C because a .pxd runs no code at import
# (tests/test_measure.py counts odd ASCII texts through it). Counting ASCII text through it, without a
# branch, took half the time of testing each character (scrapinghub, the table's walk alone).
cdef extern from *:
    """
    static const unsigned char pagesieve_ascii_class[128] = {
        1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0,
        0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 5, 1, 1, 1,
        3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1,
        1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
        3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1,
        1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
        3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1
    };
    """
    const unsigned char pagesieve_ascii_class[128]


cdef inline bint _is_comma(Py_UCS4 cp) noexcept:
    """The commas main_content's scores count (scoring.COMMAS; ASCII ',' apart)."""
    return (cp == 0x060C or cp == 0xFE50 or cp == 0xFE10 or cp == 0xFE11 or cp == 0x2E41 or cp == 0x2E34
            or cp == 0x2E32 or cp == 0xFF0C)


cdef inline void _count_utf8(const unsigned char* s, long* chars, long* letters, long* commas) noexcept:
    """Add the non-whitespace characters and the letters of the UTF-8 text ``s`` (NUL-terminated), and
    its commas when ``commas`` is not NULL."""
    cdef unsigned char c
    cdef Py_UCS4 cp
    cdef long n = 0, l = 0, m = 0
    cdef unsigned char k
    while True:
        c = s[0]
        if c == 0:
            break
        if c < 0x80:
            k = pagesieve_ascii_class[c]
            n += k & 1
            l += (k >> 1) & 1
            m += k >> 2
            s += 1
            continue
        # libxml2 holds valid UTF-8; the checks only keep a broken sequence from reading past the end.
        if c < 0xE0 and (s[1] & 0xC0) == 0x80:
            cp = ((c & 0x1F) << 6) | (s[1] & 0x3F)
            s += 2
        elif c < 0xF0 and (s[1] & 0xC0) == 0x80 and (s[2] & 0xC0) == 0x80:
            cp = ((c & 0x0F) << 12) | ((s[1] & 0x3F) << 6) | (s[2] & 0x3F)
            s += 3
        elif (s[1] & 0xC0) == 0x80 and (s[2] & 0xC0) == 0x80 and (s[3] & 0xC0) == 0x80:
            cp = ((c & 0x07) << 18) | ((s[1] & 0x3F) << 12) | ((s[2] & 0x3F) << 6) | (s[3] & 0x3F)
            s += 4
        else:
            cp = 0xFFFD
            s += 1
        if not Py_UNICODE_ISSPACE(cp):
            n += 1
            if Py_UNICODE_ISALNUM(cp):
                l += 1
            elif _is_comma(cp):
                m += 1
    chars[0] += n
    letters[0] += l
    if commas is not NULL:
        commas[0] += m


cdef inline void _count_str(str text, long* chars, long* letters) noexcept:
    """The same counts for a Python string (None and "" count nothing)."""
    cdef Py_UCS4 ch
    if not text:
        return
    for ch in text:
        if not Py_UNICODE_ISSPACE(ch):
            chars[0] += 1
            if Py_UNICODE_ISALNUM(ch):
                letters[0] += 1


cdef inline void _own_text(xmlNode* el, long* chars, long* letters, long* commas) noexcept:
    """Count ``el``'s text as lxml reads it: ``.text`` (the text nodes before the first child that is
    not text) and each child's ``.tail`` (the text nodes after an element, comment, PI or entity
    reference, up to the next node that is not text; XInclude markers are stepped over)."""
    cdef xmlNode* c = el.children
    cdef bint reading = True
    while c is not NULL:
        if c.type == tree.XML_TEXT_NODE or c.type == tree.XML_CDATA_SECTION_NODE:
            if reading and c.content is not NULL:
                _count_utf8(<const unsigned char*>c.content, chars, letters, commas)
        elif c.type == tree.XML_XINCLUDE_START or c.type == tree.XML_XINCLUDE_END:
            pass
        else:
            reading = cetree._isElement(c)
        c = c.next
