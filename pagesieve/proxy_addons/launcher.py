"""``pagesieve run``: validate the configuration, then start mitmproxy with pagesieve's addons.

    pagesieve run [--config FILE] [--preset NAME] [--listen-host H] [--listen-port P]
                  [--confdir DIR] [--mitmproxy-set NAME=VALUE ...]

Defaults come from the config's ``proxy:`` section (127.0.0.1:8080, ``~/.mitmproxy``). Every
check — config file, preset, address free, the checks of ``pagesieve config check``
(:mod:`pagesieve.preflight`: users, directory, state database), every ``--mitmproxy-set`` option
against the options of the loaded addons — happens before the banner, and an error is one line
with exit status 2 (through :mod:`pagesieve.cli`). Ctrl-C or SIGTERM stop it cleanly: the
worker processes are shut down with the proxy.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import os
import signal
import socket
import sys
from pathlib import Path

from pagesieve.core.errors import ConfigError
from pagesieve.engine import config as C

log = logging.getLogger("pagesieve.proxy")


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="start the filtering proxy (mitmproxy with pagesieve's addons)")
    p.add_argument("--preset", metavar="NAME", help="preset for users who chose none (default: the config's `preset`)")
    p.add_argument("--listen-host", metavar="HOST", help="address to listen on (default: proxy.listen_host, 127.0.0.1)")
    p.add_argument("--listen-port", metavar="PORT", type=int, help="port to listen on (default: proxy.listen_port, 8080)")
    p.add_argument("--confdir", metavar="DIR", help="mitmproxy's directory with its CA (default: proxy.confdir)")
    p.add_argument("--mitmproxy-set", dest="mitm_options", metavar="NAME=VALUE", action="append", default=[],
                   help="set a mitmproxy option, e.g. ssl_verify_upstream_trusted_ca=/path/ca.pem (repeatable)")
    p.set_defaults(func=cmd_run)


def set_mitmproxy_options(opts, items: list[str]) -> None:
    """Set ``--mitmproxy-set NAME=VALUE`` items once every addon (mitmproxy's and ours) has declared its
    options: an option of any loaded addon is taken (``block_list``, ``ssl_insecure`` ...) and every addon
    sees it; an unknown name or a value an addon refuses stops start-up with one line, before the banner."""
    from mitmproxy import exceptions

    for item in items:
        name = item.split("=", 1)[0].strip()
        if name not in opts:
            raise ConfigError(f"--mitmproxy-set {item}: no loaded addon has an option {name!r} (`mitmdump --options` "
                              "lists mitmproxy's)")
        try:
            opts.set(item)
        except exceptions.OptionsError as err:
            raise ConfigError(f"--mitmproxy-set {item}: {' '.join(str(err).split())}") from err


def check_listen(host: str, port: int) -> None:
    """ConfigError (one line) unless ``host:port`` can be listened on now."""
    if not 1 <= port <= 65535:
        raise ConfigError(f"--listen-port {port}: expected a port from 1 to 65535")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        raise ConfigError(f"listen host {host!r}: cannot resolve it ({err.strerror})") from err
    family, kind, proto, _, addr = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(addr)
        except OSError as err:
            hint = " (another proxy running? choose --listen-port)" if err.errno == errno.EADDRINUSE else ""
            raise ConfigError(f"cannot listen on {host}:{port}: {err.strerror}{hint}") from err


def cmd_run(args: argparse.Namespace) -> int:
    cfg = C.load(args.config)
    if args.preset and args.preset not in cfg.presets:
        raise ConfigError(f"--preset {args.preset!r}: unknown preset; available: {', '.join(sorted(cfg.presets))}")
    s = cfg.globals["proxy"]
    host = args.listen_host or s.listen_host
    port = args.listen_port if args.listen_port is not None else s.listen_port
    confdir = Path(os.path.expanduser(args.confdir or s.confdir))
    check_listen(host, port)
    try:
        confdir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError(f"confdir {confdir}: cannot create it: {err.strerror}") from err
    from pagesieve import preflight

    facts = preflight.check(cfg)  # what `pagesieve config check` checks: users, directory, state, lists
    preset = cfg.preset_for(args.preset)
    shown = f"[{host}]" if ":" in host else host
    workers = s.workers or os.cpu_count() or 1
    ways = ["its Show original link (or ?" + s.bypass_param + ", after a question)"] if s.bypass_param else []
    if s.bypass_header:
        ways.append(f"send the header {s.bypass_header}: 1")
    banner = [
        f"pagesieve: filtering proxy on http://{shown}:{port} (preset {preset}, {workers} worker processes, "
        f"config {cfg.source})",
        f"  Browser: use {shown}:{port} as HTTP and HTTPS proxy.",
        f"  HTTPS: trust mitmproxy's CA: open http://mitm.it through the proxy, or install "
        f"{confdir / 'mitmproxy-ca-cert.pem'} (created on first start).",
        *(f"  {line[0].upper()}{line[1:]}." for line in facts),
        f"  Unfiltered: one page: {' or '.join(ways) or '(no bypass parameter or header configured)'}; "
        f"whole sites: proxy.bypass_hosts.",
        "  Stop: Ctrl-C.",
    ]
    # Start the workers' forkserver now: it loads the block lists and the model while this process
    # imports and starts mitmproxy (the addon's own start is then a no-op; see proxy_addons.warm).
    from pagesieve.proxy_addons import warm

    warm.start(cfg.resolve(args.preset or None))
    return asyncio.run(_serve(cfg, args.preset or "", host, port, str(confdir), args.mitm_options, banner))


async def _serve(cfg, preset: str, host: str, port: int, confdir: str, mitm_options: list[str],
                 banner: list[str] | None = None) -> int:
    from mitmproxy import exceptions, hooks, options
    from mitmproxy.tools.dump import DumpMaster

    from pagesieve.proxy_addons import default_addons

    opts = options.Options(listen_host=host, listen_port=port, confdir=confdir)
    try:
        opts.set(f"pagesieve_preset={preset}", defer=True)
    except exceptions.OptionsError as err:
        raise ConfigError(str(err)) from err
    master = DumpMaster(opts, with_termlog=False, with_dumper=False)
    logging.getLogger("mitmproxy.proxy.server").setLevel(logging.WARNING)  # no line per connection
    ours = default_addons(cfg)
    try:
        master.addons.add(*ours)
        # `add` runs only the load hook; an option set before (the preset) configured the addons that
        # were there then. Configure ours now with every option, as mitmproxy's script loader does.
        for addon in ours:
            master.addons.invoke_addon_sync(addon, hooks.ConfigureHook(set(opts.keys())))
    except exceptions.OptionsError as err:
        raise ConfigError(str(err)) from err
    set_mitmproxy_options(opts, mitm_options)
    if banner:
        print("\n".join(banner), flush=True)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, master.shutdown)
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    await master.run()
    log.info("proxy stopped")
    sys.stdout.flush()
    return 0
