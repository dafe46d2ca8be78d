"""Load pagesieve into a plain mitmproxy run::

    mitmdump -s pagesieve/proxy_addons/script.py --set pagesieve_config=config.yaml --set pagesieve_preset=reader

The listen address, port and confdir are then mitmproxy's own options (``--listen-host``,
``-p``, ``--set confdir=``); everything else comes from the config file's ``proxy:`` section.
"""

from pagesieve.proxy_addons import default_addons

addons = default_addons()
