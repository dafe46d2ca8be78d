"""Load pagesieve into a plain mitmproxy run::

    mitmdump -s pagesieve/proxy_addons/script.py --set pagesieve_config=config.yaml --set pagesieve_preset=reader

The port and confdir are then mitmproxy's own options (``-p``, ``--set confdir=``); the listen
address is ``--listen-host`` when given, else the config's ``proxy.listen_host`` (127.0.0.1, not
mitmproxy's every-interface default); everything else comes from the config file's ``proxy:``
section.
"""

from pagesieve.proxy_addons import default_addons

addons = default_addons()
