"""Exceptions raised by pagesieve.

    PagesieveError            base of everything below
    ├── ConfigError           a setting, preset or config file is wrong (start-up only)
    ├── InputError            a page cannot be read as HTML (empty, binary, unreadable);
    │                         its ``reason`` is the short word the proxy reports (``not-html``,
    │                         ``unparsable``)
    │   └── NeedsScripts      a page whose content its scripts make (an empty app shell) that the
    │                         chain would take its scripts from: served as sent (``needs-scripts``)
    ├── FilterError           a filter failed on one page (the chain serves the page as it was)
    └── StateUnavailable      the state database (PostgreSQL) cannot be reached now; callers go on
                              with what they know, and it recovers by itself

Each message is one line meant for a person: it names the key or input, the bad value
and what is allowed.
"""


class PagesieveError(Exception):
    """Base class of pagesieve's own errors."""


class ConfigError(PagesieveError):
    """A configuration key has a value that is not allowed, or a file cannot be read."""


class InputError(PagesieveError):
    """The input is not a readable HTML page."""

    #: The short reason the proxy reports when it serves such a page unfiltered.
    reason = "not-html"


class UnparsableError(InputError):
    """The input is HTML, but it cannot be parsed faithfully (so it is served as it is)."""

    reason = "unparsable"


class NeedsScripts(InputError):
    """The page is a shell its scripts fill in (:mod:`pagesieve.analysis.appshell`); without them it would say
    nothing but "enable JavaScript", so it is served as it was sent."""

    reason = "needs-scripts"


class FilterError(PagesieveError):
    """A filter raised while transforming a page."""


class StateUnavailable(PagesieveError):
    """The state database cannot be reached now (PostgreSQL down or unreachable); try again later."""
