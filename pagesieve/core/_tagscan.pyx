# cython: language_level=3, boundscheck=False, wraparound=False
"""The compiled scan of pagesieve.core.tagscan: :func:`scan` gives ``py_scan``'s answer, to the
offset, in one pass in C over the string's characters (tests/test_tagscan.py compares them). The
steps mirror ``py_scan``'s, each string search a loop here; see that module for the rules."""

from cpython.object cimport PyObject
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_KIND, PyUnicode_READ


cdef extern from "Python.h":
    # Declared here without Cython's ``except -2``: the string is a str and the range within it, so
    # it cannot fail, and the calls stay plain C (CPython's memchr-based search).
    Py_ssize_t FindChar "PyUnicode_FindChar" (PyObject* text, Py_UCS4 ch, Py_ssize_t start, Py_ssize_t end,
                                              int direction) noexcept


cdef struct Text:
    PyObject* text
    int kind
    void* data
    Py_ssize_t n


# The names the scan cares about, by code (code = index + 1): foreign content, then raw text (from
# STYLE to TEXTAREA), then what the insertion modes' reading watches.
cdef enum:
    N_NAMES = 16
cdef const char* NAMES[N_NAMES]
NAMES[:] = [b"svg", b"math", b"script", b"plaintext", b"style", b"xmp", b"iframe", b"noembed", b"noframes",
            b"title", b"textarea", b"select", b"input", b"keygen", b"frameset", b"template"]
cdef Py_ssize_t LENGTHS[N_NAMES]
LENGTHS[:] = [3, 4, 6, 9, 5, 3, 6, 7, 8, 5, 8, 6, 5, 6, 8, 8]
cdef int SVG = 1, MATH = 2, SCRIPT = 3, PLAINTEXT = 4, STYLE = 5, NOFRAMES = 9, TITLE = 10, TEXTAREA = 11, \
    SELECT = 12, INPUT = 13, KEYGEN = 14, FRAMESET = 15, TEMPLATE = 16

# The readings (as tagscan.LIBXML2, BROWSER, MODES).
cdef int MODES = 2


cdef struct Reading:
    # Where one reading stands in the tree builder's modes (as tagscan._Reading).
    int reading
    long depth
    Py_ssize_t saw
    Py_ssize_t event
    bint select
    long select_templates
    long templates
    bint frameset

# The attribute states of a tag (as in tagscan.py).
cdef enum:
    BEFORE_NAME, AFTER_NAME, BEFORE_VALUE, AFTER_QUOTED, SELF_CLOSING


cdef inline Py_ssize_t length(const char* s) noexcept:
    cdef Py_ssize_t k = 0
    while s[k]:
        k += 1
    return k


cdef inline Py_UCS4 at(const Text* t, Py_ssize_t i) noexcept:
    return PyUnicode_READ(t.kind, t.data, i)


cdef inline bint is_space(Py_UCS4 c) noexcept:
    return c == 0x20 or c == 0x09 or c == 0x0A or c == 0x0C or c == 0x0D


cdef inline bint is_letter(Py_UCS4 c) noexcept:
    return (0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A)


cdef inline bint ends_name(Py_UCS4 c) noexcept:
    """A space, / or >: what ends a tag name (and follows an end tag's name)."""
    return is_space(c) or c == 0x2F or c == 0x3E


cdef inline Py_ssize_t find(const Text* t, Py_UCS4 ch, Py_ssize_t i) noexcept:
    """The first ``ch`` at or after ``i``, or -1."""
    if i >= t.n:
        return -1
    return FindChar(t.text, ch, i, t.n, 1)


cdef bint starts(const Text* t, Py_ssize_t i, const char* s) noexcept:
    """``s`` (ASCII) at ``i``, exactly."""
    cdef Py_ssize_t k = 0
    while s[k]:
        if i + k >= t.n or <unsigned int>at(t, i + k) != <unsigned int>s[k]:
            return False
        k += 1
    return True


cdef bint names(const Text* t, Py_ssize_t i, const char* s) noexcept:
    """The lower-case ASCII name ``s`` at ``i``, in any case of ASCII letters."""
    cdef Py_ssize_t k = 0
    cdef unsigned int c
    while s[k]:
        if i + k >= t.n:
            return False
        c = <unsigned int>at(t, i + k)
        if 0x41 <= c <= 0x5A:
            c = c + 0x20
        if c != <unsigned int>s[k]:
            return False
        k += 1
    return True


cdef int name_code(const Text* t, Py_ssize_t start, Py_ssize_t end) noexcept:
    """The code of the tag name at [start, end) (0: none the scan cares about)."""
    cdef int code
    cdef Py_ssize_t n = end - start
    cdef unsigned int first
    if n < 3 or n > 9:
        return 0
    first = <unsigned int>at(t, start) | 0x20  # an ASCII letter in lower case (no other code point ends as one)
    for code in range(N_NAMES):
        if n == LENGTHS[code] and first == <unsigned int>NAMES[code][0] and names(t, start + 1, NAMES[code] + 1):
            return code + 1
    return 0


cdef Py_ssize_t skip_spaces(const Text* t, Py_ssize_t i) noexcept:
    while i < t.n and is_space(at(t, i)):
        i += 1
    return i


cdef Py_ssize_t attr_name_end(const Text* t, Py_ssize_t i) noexcept:
    cdef Py_UCS4 c
    while i < t.n:
        c = at(t, i)
        if is_space(c) or c == 0x2F or c == 0x3E or c == 0x3D:
            break
        i += 1
    return i


cdef Py_ssize_t tag_name_end(const Text* t, Py_ssize_t i) noexcept:
    while i < t.n and not ends_name(at(t, i)):
        i += 1
    return i


cdef Py_ssize_t tag(const Text* t, Py_ssize_t i, int state, long* count, bint* self_closing) noexcept:
    """Read a tag's attributes from ``i``: the offset after its ``>``, or -1 when the text ends
    first; adds its attributes to ``count``."""
    cdef Py_UCS4 c
    self_closing[0] = False
    while True:
        if state == BEFORE_NAME:
            i = skip_spaces(t, i)
            if i >= t.n:
                return -1
            c = at(t, i)
            if c == 0x2F or c == 0x3E:
                state = AFTER_NAME
            else:
                count[0] += 1
                i = attr_name_end(t, i + 1)
                state = AFTER_NAME
        elif state == AFTER_NAME:
            i = skip_spaces(t, i)
            if i >= t.n:
                return -1
            c = at(t, i)
            if c == 0x2F:
                i += 1
                state = SELF_CLOSING
            elif c == 0x3D:
                i += 1
                state = BEFORE_VALUE
            elif c == 0x3E:
                return i + 1
            else:
                count[0] += 1
                i = attr_name_end(t, i + 1)
        elif state == BEFORE_VALUE:
            i = skip_spaces(t, i)
            if i >= t.n:
                return -1
            c = at(t, i)
            if c == 0x22 or c == 0x27:
                i = find(t, c, i + 1)
                if i < 0:
                    return -1
                i += 1
                state = AFTER_QUOTED
            elif c == 0x3E:
                return i + 1
            else:
                while i < t.n:
                    c = at(t, i)
                    if is_space(c) or c == 0x3E:
                        break
                    i += 1
                if i >= t.n:
                    return -1
                if c == 0x3E:
                    return i + 1
                i += 1
                state = BEFORE_NAME
        elif state == AFTER_QUOTED:
            if i >= t.n:
                return -1
            c = at(t, i)
            if is_space(c):
                i += 1
                state = BEFORE_NAME
            elif c == 0x2F:
                i += 1
                state = SELF_CLOSING
            elif c == 0x3E:
                return i + 1
            else:
                state = BEFORE_NAME
        else:  # SELF_CLOSING
            if i >= t.n:
                return -1
            if at(t, i) == 0x3E:
                self_closing[0] = True
                return i + 1
            state = BEFORE_NAME


cdef Py_ssize_t end_tag_at(const Text* t, Py_ssize_t j, const char* name) noexcept:
    """When ``</name`` followed by a space, / or > starts at ``j``: the offset after the name; else -1."""
    cdef Py_ssize_t after
    if at(t, j) != 0x3C or j + 1 >= t.n or at(t, j + 1) != 0x2F or not names(t, j + 2, name):
        return -1
    after = j + 2 + length(name)
    if after >= t.n or not ends_name(at(t, after)):
        return -1
    return after


cdef Py_ssize_t raw_end(const Text* t, const char* name, Py_ssize_t i) noexcept:
    """The offset after the name of the first ``</name`` (then a space, / or >) from ``i``, or -1."""
    cdef Py_ssize_t after
    while True:
        i = find(t, 0x3C, i)
        if i < 0:
            return -1
        after = end_tag_at(t, i, name)
        if after >= 0:
            return after
        i += 1


cdef Py_ssize_t script_end(const Text* t, Py_ssize_t i) noexcept:
    """The offset just after ``</script`` that ends the script whose content starts at ``i``, or -1."""
    cdef bint escaped = False, double = False
    cdef Py_UCS4 c
    cdef Py_ssize_t after
    while i < t.n:
        if not escaped and not double:  # plain script data: only "<" matters
            i = find(t, 0x3C, i)
            if i < 0:
                return -1
        c = at(t, i)
        if c == 0x2D:  # -
            if starts(t, i, b"-->"):
                escaped = double = False
                i += 3
                continue
        elif c == 0x3C:  # <
            if starts(t, i, b"<!--"):
                escaped = escaped or not double
                i += 2
                continue
            after = end_tag_at(t, i, b"script")
            if after >= 0:
                if not double:
                    return after
                double = False
                i = after + 1
                continue
            if names(t, i + 1, b"script") and i + 7 < t.n and ends_name(at(t, i + 7)):
                if escaped and not double:
                    double = True
                    i += 8
                else:
                    i += 7
                continue
        i += 1
    return -1


cdef Py_ssize_t raw_text_end(const Text* t, int code, Py_ssize_t i, long* ignored, bint* flag) noexcept:
    """Where markup starts again after the start tag with name ``code`` ending at ``i`` (as
    tagscan._raw_text_end): -1 when the text ends inside it."""
    if code == PLAINTEXT:
        return t.n
    if code == SCRIPT:
        i = script_end(t, i)
    elif STYLE <= code <= TEXTAREA:
        i = raw_end(t, NAMES[code - 1], i)
    else:
        return i
    if i < 0:
        return -1
    return tag(t, i, AFTER_QUOTED, ignored, flag)


cdef Py_ssize_t comment_end(const Text* t, Py_ssize_t p) noexcept:
    """After ``<!--`` ending at ``p``: the offset after the comment, or -1."""
    if p < t.n and at(t, p) == 0x3E:
        return p + 1
    if starts(t, p, b"->"):
        return p + 2
    while True:
        p = find(t, 0x2D, p)
        if p < 0:
            return -1
        if starts(t, p, b"-->"):
            return p + 3
        if starts(t, p, b"--!>"):
            return p + 4
        p += 1


cdef inline bint ignored_in_select(int code) noexcept:
    """As tagscan.IGNORED_IN_SELECT: raw text but script and textarea, svg, math and frameset."""
    return code == SVG or code == MATH or code == PLAINTEXT or (STYLE <= code <= TITLE) or code == FRAMESET


cdef Py_ssize_t start_tag(const Text* t, Reading* r, int code, Py_ssize_t i, Py_ssize_t end, bint self_closing,
                          long* ignored, bint* flag) noexcept:
    """As tagscan._Reading.start_tag: after the start tag with name ``code`` (its ``<`` at ``i``, its
    ``>`` before ``end``), where markup starts again (-1: the text ends inside it)."""
    cdef bint modes = r.reading == MODES
    if r.frameset:
        return raw_text_end(t, code, end, ignored, flag) if code == NOFRAMES else end
    if r.select and r.depth == 0:
        if ignored_in_select(code) or code == TEMPLATE:
            if not modes:
                if r.event < 0:
                    r.event = i
            elif code == TEMPLATE:
                r.templates += 1
                r.select_templates += 1
                return end
            elif not r.select_templates:
                return end
        elif (code == SELECT or code == INPUT or code == KEYGEN or code == TEXTAREA) \
                and not r.select_templates:
            r.select = False
            if code == SELECT:
                return end
    elif code == SELECT and r.depth == 0:
        r.select = True
        r.select_templates = 0
        return end
    if code == FRAMESET:
        if not modes:
            if r.event < 0:
                r.event = i
        elif not r.templates:
            r.frameset = True
            r.depth = 0
        return end
    if code == TEMPLATE:
        if modes and r.depth == 0:
            r.templates += 1
        return end
    if code == SVG or code == MATH:
        if r.saw < 0:
            r.saw = i
        if r.reading and not self_closing:
            r.depth += 1
        return end
    if r.depth == 0:
        return raw_text_end(t, code, end, ignored, flag)
    return end


cdef void end_tag(Reading* r, int code) noexcept:
    """As tagscan._Reading.end_tag."""
    if r.depth:
        if code == SVG or code == MATH:
            r.depth -= 1
    elif code == SELECT:
        r.select = r.select and r.select_templates > 0
    elif code == TEMPLATE and r.templates:
        r.templates -= 1
        if r.select_templates:
            r.select_templates -= 1
        else:
            r.select = False


def scan(str text, int reading, Py_ssize_t start=0):
    """As tagscan.py_scan: (most attributes on one start tag, the offset of its ``<`` or -1, the
    offset of the first start tag that opens SVG or MathML or -1, the offset of the first tag after
    which the modes' reading may differ or -1), for one reading (0, 1, 2) from ``start``."""
    cdef Text t
    t.text = <PyObject*>text
    t.kind = PyUnicode_KIND(text)
    t.data = PyUnicode_DATA(text)
    t.n = len(text)
    cdef long best = 0, count = 0, ignored = 0
    cdef Py_ssize_t where = -1, i = max(start, 0), j, end
    cdef bint self_closing = False
    cdef int code
    cdef Py_UCS4 c
    cdef Reading r
    r.reading, r.depth, r.saw, r.event = reading, 0, -1, -1
    r.select, r.select_templates, r.templates, r.frameset = False, 0, 0, False
    while True:
        i = find(&t, 0x3C, i)
        if i < 0 or i + 1 >= t.n:
            break
        c = at(&t, i + 1)
        if is_letter(c):  # a start tag
            j = tag_name_end(&t, i + 2)
            count = 0
            end = tag(&t, j, AFTER_QUOTED, &count, &self_closing)
            if end < 0:
                break
            if count > best:
                best, where = count, i
            code = name_code(&t, i + 1, j)
            if code:
                end = start_tag(&t, &r, code, i, end, self_closing, &ignored, &self_closing)
                if end < 0:
                    break
            i = end
        elif c == 0x2F:  # /
            if i + 2 >= t.n:
                break
            c = at(&t, i + 2)
            if is_letter(c):  # an end tag: read through, not counted
                j = tag_name_end(&t, i + 3)
                end = tag(&t, j, AFTER_QUOTED, &ignored, &self_closing)
                if end < 0:
                    break
                if r.depth or r.select or r.templates:
                    end_tag(&r, name_code(&t, i + 2, j))
                i = end
            elif c == 0x3E:
                i += 3
            else:
                i = find(&t, 0x3E, i + 2)
                if i < 0:
                    break
                i += 1
        elif c == 0x21:  # !
            if starts(&t, i + 2, b"--"):
                i = comment_end(&t, i + 4)
            elif r.depth and starts(&t, i + 2, b"[CDATA["):
                i = i + 9
                while True:
                    i = find(&t, 0x5D, i)
                    if i < 0 or starts(&t, i, b"]]>"):
                        break
                    i += 1
                if i >= 0:
                    i += 3
            else:
                i = find(&t, 0x3E, i + 2)
                if i >= 0:
                    i += 1
            if i < 0:
                break
        elif c == 0x3F:  # ?
            i = find(&t, 0x3E, i + 2)
            if i < 0:
                break
            i += 1
        else:
            i += 1
    return best, where, r.saw, r.event
