# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Reads of every attribute of a page in compiled code, each the same answer as its Python walk
(a test runs both on corpus pages and demands equal results):

* :func:`page_attributes`: what the ``ads`` filter's page index reads (``filters.ads.index.PageIndex``):
  the page's tags and attribute names, the values of a few attributes in document order, and the
  elements with a URL attribute;
* :func:`script_attributes`: the attributes that may run script (``filters.ignore.script_attributes``);
* :func:`aria_elements`: the elements with a ``role`` or an ``aria-*`` attribute, which the
  accessibility filter's ARIA repairs look at (``filters.accessibility.aria._attr_candidates``);
* :func:`elements_with`: the elements of some tags or with some attributes, the only ones a test of
  names and roles can pick (``core.measure.elements_with``: page furniture, main_content's unlikely
  blocks);
* :func:`parents_of`: the elements with some number of element children or more (page type detection's
  candidate parents of repeated items, ``core.measure.parents_of``).

The Python walks ask lxml for every element's attributes as new Python strings (names, values, a tuple
each) and test them there; about 0.2x the lxml parse+serialise floor each on corpus pages. Here the walk
follows libxml2's pointers, tests the attribute bytes in place and makes a Python string only for what
it returns. A page's tag and attribute names are interned by libxml2 (one pointer per name in the
document's dictionary), so each distinct name is turned into a Python string once per walk; a name not
from the dictionary is only looked up again, never mistaken for another one.
"""

from libc.stdint cimport uintptr_t
from libc.stdlib cimport free, calloc
from libc.string cimport strcmp

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport xmlAttr, xmlNode

from lxml import etree as _etree

cetree.import_lxml__etree()

cdef object _COMMENT = _etree.Comment
cdef object _PI = _etree.ProcessingInstruction
cdef object _ENTITY = _etree.Entity
cdef dict _SCRIPTDA = str.maketrans("SCRIPTDA", "scriptda")


cdef enum:
    N_URL = 1  # an attribute name in the URL attributes
    N_WANTED = 2  # an attribute whose values are gathered
    N_CLASS = 4
    N_ID = 8


ctypedef struct Slot:
    const char* key  # the name's bytes (libxml2's pointer), NULL: empty
    int flags
    Py_ssize_t index  # into the walk's list of name strings


cdef class _Names:
    """Distinct names by their libxml2 pointer: the Python string made once, and flags about it."""

    cdef Slot* slots
    cdef Py_ssize_t size, used
    cdef list strings

    def __cinit__(self):
        self.size = 256
        self.used = 0
        self.slots = <Slot*>calloc(self.size, sizeof(Slot))
        if self.slots is NULL:
            raise MemoryError()
        self.strings = []

    def __dealloc__(self):
        free(self.slots)

    cdef inline Py_ssize_t _place(self, const char* key) noexcept:
        cdef uintptr_t h = (<uintptr_t>key >> 3) * <uintptr_t>0x9E3779B97F4A7C15
        cdef Py_ssize_t mask = self.size - 1
        cdef Py_ssize_t i = <Py_ssize_t>(h >> 24) & mask
        while self.slots[i].key is not NULL and self.slots[i].key is not key:
            i = (i + 1) & mask
        return i

    cdef int _grow(self) except -1:
        cdef Slot* old = self.slots
        cdef Py_ssize_t old_size = self.size, k, j
        self.size *= 2
        self.slots = <Slot*>calloc(self.size, sizeof(Slot))
        if self.slots is NULL:
            self.slots = old
            self.size = old_size
            raise MemoryError()
        for k in range(old_size):
            if old[k].key is not NULL:
                j = self._place(old[k].key)
                self.slots[j] = old[k]
        free(old)
        return 0

    cdef Slot* find(self, const char* key) noexcept:
        """The slot of ``key``, or NULL when it is not known yet."""
        cdef Py_ssize_t i = self._place(key)
        return &self.slots[i] if self.slots[i].key is not NULL else NULL

    cdef Slot* add(self, const char* key, object string, int flags) except NULL:
        if (self.used + 1) * 2 > self.size:
            self._grow()
        cdef Py_ssize_t i = self._place(key)
        self.slots[i].key = key
        self.slots[i].flags = flags
        self.slots[i].index = len(self.strings)
        self.strings.append(string)
        self.used += 1
        return &self.slots[i]


cdef inline xmlNode* _next_node(xmlNode* node, xmlNode* top) noexcept:
    """The node after ``node`` in document order within ``top``'s subtree (elements' children only),
    among elements, comments, processing instructions and entity references (lxml's ``iter()``)."""
    cdef xmlNode* c
    if node.type == tree.XML_ELEMENT_NODE:
        c = node.children
        while c is not NULL:
            if _is_element(c):
                return c
            c = c.next
    while node is not top:
        c = node.next
        while c is not NULL:
            if _is_element(c):
                return c
            c = c.next
        node = node.parent
    return NULL


cdef inline bint _is_element(xmlNode* c) noexcept:
    return (c.type == tree.XML_ELEMENT_NODE or c.type == tree.XML_COMMENT_NODE
            or c.type == tree.XML_ENTITY_REF_NODE or c.type == tree.XML_PI_NODE)


cdef object _tag_of(xmlNode* node, _Names tags):
    """``node``'s ``.tag`` as lxml gives it (a name string, or the factory of a comment, PI or entity)."""
    cdef Slot* slot
    if node.type == tree.XML_COMMENT_NODE:
        return _COMMENT
    if node.type == tree.XML_PI_NODE:
        return _PI
    if node.type == tree.XML_ENTITY_REF_NODE:
        return _ENTITY
    if cetree._getNs(node) is not NULL:
        return cetree.namespacedName(node)
    slot = tags.find(<const char*>node.name)
    if slot is NULL:
        slot = tags.add(<const char*>node.name, cetree.namespacedName(node), 0)
    return tags.strings[slot.index]


cdef inline bint _has_plain_attr(xmlNode* node, const char* name) noexcept:
    cdef xmlAttr* attr = node.properties
    while attr is not NULL:
        if attr.type == tree.XML_ATTRIBUTE_NODE and attr.ns is NULL and strcmp(<const char*>attr.name, name) == 0:
            return True
        attr = attr.next
    return False


def page_attributes(root, dict values, url_attrs):
    """One walk of ``root.iter()``: (tags, attribute names, elements with a class, elements with an
    id, elements with a URL attribute). ``values`` maps attribute names (class and id among them) to
    lists that get each such attribute's values in document order; ``url_attrs``: the names that make
    an element one with a URL (so does an ``<object data>``). As ``filters.ads.index.PageIndex`` reads it."""
    cdef xmlNode* top = (<cetree._Element?>root)._c_node
    cdef cetree._Document doc = (<cetree._Element>root)._doc
    cdef xmlNode* node = top
    cdef xmlAttr* attr
    cdef _Names tags = _Names()
    cdef _Names names = _Names()
    cdef Slot* slot
    cdef int flags, seen
    cdef bint url
    cdef set tag_set = set(), attr_set = set()
    cdef list class_els = [], id_els = [], with_url = []
    cdef list got
    cdef object el, name, tag
    while node is not NULL:
        tag = _tag_of(node, tags)
        tag_set.add(tag)
        if node.type == tree.XML_ELEMENT_NODE and node.properties is not NULL:
            el = None
            url = False
            attr = node.properties
            while attr is not NULL:
                if attr.type != tree.XML_ATTRIBUTE_NODE:
                    attr = attr.next
                    continue
                if attr.ns is not NULL:  # not from the HTML parser: looked up by its full name each time
                    name = cetree.namespacedName(<xmlNode*>attr)
                    attr_set.add(name)
                    flags = _name_flags(name, values, url_attrs)
                else:
                    slot = names.find(<const char*>attr.name)
                    if slot is NULL:
                        name = cetree.namespacedName(<xmlNode*>attr)
                        slot = names.add(<const char*>attr.name, name, _name_flags(name, values, url_attrs))
                        attr_set.add(name)
                    else:
                        name = names.strings[slot.index]
                    flags = slot.flags
                if flags & N_URL:
                    url = True
                if flags & N_WANTED:
                    got = values[name]
                    got.append(cetree.attributeValue(node, attr))
                    if flags & (N_CLASS | N_ID):
                        if el is None:
                            el = cetree.elementFactory(doc, node)
                        (class_els if flags & N_CLASS else id_els).append(el)
                attr = attr.next
            if url or (tag == "object" and _has_plain_attr(node, b"data")):
                with_url.append(el if el is not None else cetree.elementFactory(doc, node))
        node = _next_node(node, top)
    return tag_set, attr_set, class_els, id_els, with_url


cdef int _name_flags(name, dict values, url_attrs):
    cdef int flags = 0
    if name in url_attrs:
        flags |= N_URL
    if name in values:
        flags |= N_WANTED
        if name == "class":
            flags |= N_CLASS
        elif name == "id":
            flags |= N_ID
    return flags


cdef inline unsigned char _lower(unsigned char c) noexcept:
    return c + 32 if 65 <= c <= 90 else c


cdef inline bint _starts(const unsigned char* p, const char* word) noexcept:
    """Whether ``p`` starts with ``word`` (lowercase ASCII), its ASCII letters in any case."""
    cdef Py_ssize_t i = 0
    while word[i] != 0:
        if _lower(p[i]) != <unsigned char>word[i]:  # also stops at the end of ``p`` (0 matches no letter)
            return False
        i += 1
    return True


cdef bint _holds_script_url(const unsigned char* s) noexcept:
    """Whether ``s`` holds "script:" or "data:" in any case of those ASCII letters (the Python test
    lowercases exactly the letters of SCRIPTDA, which are all the letters of both words). UTF-8: the
    bytes of other characters are all above ASCII and match none of them."""
    cdef const unsigned char* p = s
    cdef unsigned char c
    while p[0] != 0:
        c = _lower(p[0])
        if (c == 115 and _starts(p, b"script:")) or (c == 100 and _starts(p, b"data:")):
            return True
        p += 1
    return False


cdef bint _attr_runs_script(xmlNode* node, xmlAttr* attr) except -1:
    cdef const char* name = <const char*>attr.name
    cdef xmlNode* text = attr.children
    if attr.ns is NULL and ((name[0] == b"o" and name[1] == b"n") or strcmp(name, b"srcdoc") == 0):
        return True
    if text is NULL:
        return False
    if text.next is NULL and text.type == tree.XML_TEXT_NODE and text.content is not NULL:
        return _holds_script_url(<const unsigned char*>text.content)
    # A value of several nodes: lxml's reading of it, tested as the Python walk tests it.
    low = cetree.attributeValue(node, attr).translate(_SCRIPTDA)
    return "script:" in low or "data:" in low


def script_attributes(root):
    """(element, attribute name, value) of the attributes that may run script, in document order:
    names starting with "on", ``srcdoc``, values holding "script:" or "data:" in any case. As
    ``filters.ignore.script_attributes`` (its Python walk) reads them."""
    cdef xmlNode* top = (<cetree._Element?>root)._c_node
    cdef cetree._Document doc = (<cetree._Element>root)._doc
    cdef xmlNode* node = top
    cdef xmlAttr* attr
    cdef list out = []
    cdef object el
    while node is not NULL:
        if node.type == tree.XML_ELEMENT_NODE:
            el = None
            attr = node.properties
            while attr is not NULL:
                if attr.type == tree.XML_ATTRIBUTE_NODE and _attr_runs_script(node, attr):
                    if el is None:
                        el = cetree.elementFactory(doc, node)
                    out.append((el, cetree.namespacedName(<xmlNode*>attr), cetree.attributeValue(node, attr)))
                attr = attr.next
        node = _next_node(node, top)
    return out


cdef bint _names_aria(xmlAttr* attr) except -1:
    """Whether the attribute's name, lower-cased, holds "aria-" (a name with other than ASCII
    letters is lower-cased by Python, as the Python walk does)."""
    cdef const unsigned char* p = <const unsigned char*>attr.name
    cdef const unsigned char* q = p
    if attr.ns is not NULL:
        return "aria-" in cetree.namespacedName(<xmlNode*>attr).lower()
    while q[0] != 0:
        if q[0] >= 128:
            return "aria-" in cetree.namespacedName(<xmlNode*>attr).lower()
        q += 1
    while p[0] != 0:
        if _lower(p[0]) == 97 and _starts(p, b"aria-"):
            return True
        p += 1
    return False


def aria_elements(top):
    """The elements of ``top.iter(etree.Element)`` with an attribute named ``role`` or one whose
    name holds "aria-" in any case, in document order: the ones the accessibility filter's ARIA
    repairs look at (``filters.accessibility.aria._attr_candidates``)."""
    cdef xmlNode* c_top = (<cetree._Element?>top)._c_node
    cdef cetree._Document doc = (<cetree._Element>top)._doc
    cdef xmlNode* node = c_top
    cdef xmlAttr* attr
    cdef list out = []
    while node is not NULL:
        if node.type == tree.XML_ELEMENT_NODE:
            attr = node.properties
            while attr is not NULL:
                if attr.type == tree.XML_ATTRIBUTE_NODE and (
                        (attr.ns is NULL and strcmp(<const char*>attr.name, b"role") == 0) or _names_aria(attr)):
                    out.append(cetree.elementFactory(doc, node))
                    break
                attr = attr.next
        node = _next_node(node, c_top)
    return out


#: The most attribute names :func:`elements_with` looks for.
cdef enum:
    MAX_NAMES = 8


def elements_with(top, tags, attrs):
    """The elements of ``top.iter(etree.Element)`` (``top`` first) whose tag is in ``tags`` (a set of
    strings) or that have an attribute without a namespace named in ``attrs`` (a sequence of at most
    :data:`MAX_NAMES` strings), in document order: ``core.measure.py_elements_with`` in C. Each distinct
    tag name is looked up in ``tags`` once per walk (libxml2 interns them)."""
    cdef xmlNode* c_top = (<cetree._Element?>top)._c_node
    cdef cetree._Document doc = (<cetree._Element>top)._doc
    cdef xmlNode* node = c_top
    cdef xmlAttr* attr
    cdef _Names names = _Names()
    cdef Slot* slot
    cdef list keep = [a.encode() for a in attrs]  # the bytes the pointers below point into
    cdef const char* wanted[MAX_NAMES]
    cdef Py_ssize_t n = len(keep), k
    cdef bint hit
    cdef object tag
    cdef list out = []
    if n > MAX_NAMES:
        raise ValueError(f"at most {MAX_NAMES} attribute names, got {n}")
    for k in range(n):
        wanted[k] = <const char*>(<bytes>keep[k])
    while node is not NULL:
        if node.type == tree.XML_ELEMENT_NODE:
            if cetree._getNs(node) is not NULL:
                hit = cetree.namespacedName(node) in tags
            else:
                slot = names.find(<const char*>node.name)
                if slot is NULL:
                    tag = cetree.namespacedName(node)
                    slot = names.add(<const char*>node.name, tag, 1 if tag in tags else 0)
                hit = slot.flags != 0
            attr = node.properties
            while not hit and attr is not NULL:
                if attr.type == tree.XML_ATTRIBUTE_NODE and attr.ns is NULL:
                    for k in range(n):
                        if strcmp(<const char*>attr.name, wanted[k]) == 0:
                            hit = True
                            break
                attr = attr.next
            if hit:
                out.append(cetree.elementFactory(doc, node))
        node = _next_node(node, c_top)
    return out


def parents_of(top, Py_ssize_t least):
    """The elements of ``top.iter(etree.Element)`` (``top`` first) with ``least`` or more element children,
    in document order: ``core.measure.py_parents_of`` (the XPath ``descendant-or-self::*[count(*) >= n]``,
    which makes libxml2 build a node set of every element's children) in C."""
    cdef xmlNode* c_top = (<cetree._Element?>top)._c_node
    cdef cetree._Document doc = (<cetree._Element>top)._doc
    cdef xmlNode* node = c_top
    cdef xmlNode* c
    cdef Py_ssize_t n
    cdef list out = []
    while node is not NULL:
        if node.type == tree.XML_ELEMENT_NODE:
            n = 0
            c = node.children
            while c is not NULL and n < least:
                if c.type == tree.XML_ELEMENT_NODE:
                    n += 1
                c = c.next
            if n >= least:
                out.append(cetree.elementFactory(doc, node))
        node = _next_node(node, c_top)
    return out
