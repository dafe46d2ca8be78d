"""Host names as sites: whether a host is a site or one of its subdomains."""


def within(host: str, domain: str) -> bool:
    """True when ``host`` is ``domain`` or a subdomain of it (``news.example.org`` within
    ``example.org``; ``badexample.org`` is not). Both lower-case, without a trailing dot."""
    return host == domain or host.endswith("." + domain)
