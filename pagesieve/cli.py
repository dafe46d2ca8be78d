"""The ``pagesieve`` command line.

    pagesieve filter [--config FILE] [--preset NAME] [--set key=value ...] [--output html|text]
                     [--url URL] [--explain] [--sibling PAGE ...] SOURCE
    pagesieve config [--config FILE] (check | show | diff | defaults | regenerate | presets)
    pagesieve lists [--config FILE] (update | status)

``--config FILE`` is taken anywhere on the line: before the command, after it, or after a
sub-command (``pagesieve users add NAME --config FILE``). A file of one's own holds only what it
changes; it is layered over the packaged ``config.yaml`` (:func:`pagesieve.engine.config.load`).

Errors are one line on stderr (``pagesieve: error: ...``) and exit status 2; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

import yaml

from pagesieve.analysis import blocklists
from pagesieve.api import Filterer
from pagesieve.core.errors import ConfigError, InputError, PagesieveError
from pagesieve.engine import config as C
from pagesieve.store.site_memory import MemorySite

EXIT_ERROR = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, like every other error of ours
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def _add_config_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="configuration file (default: $PAGESIEVE_CONFIG or config.yaml)")
    p.add_argument("--preset", metavar="NAME", help="preset to use (default: the config's `preset`)")
    p.add_argument("--set", dest="overrides", metavar="KEY=VALUE", action="append", default=[],
                   help="override one setting, e.g. filters.link_lists.ratio=0.5 (repeatable)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="pagesieve", description="Declutter web pages: a filtering proxy and its filters.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("filter", help="filter one HTML page (file or -) to stdout")
    _add_config_args(p)
    p.add_argument("--output", choices=("html", "text"), help="output format (overrides output.format)")
    p.add_argument("--url", help="the page's URL (for site-specific ad rules and per-site memory)")
    p.add_argument("--explain", action="store_true", help="print what was removed and why, as JSON, to stderr")
    p.add_argument("--sibling", metavar="PAGE", action="append", default=[],
                   help="another page of the same site, run first so that per-site filters (template_blocks) "
                        "learn from it (repeatable)")
    p.add_argument("source", metavar="SOURCE", help="an HTML file, or - for standard input")
    p.set_defaults(func=cmd_filter)

    p = sub.add_parser("config", help="check the configuration, show it, or print generated defaults")
    p.add_argument("action", choices=("check", "show", "diff", "defaults", "regenerate", "presets"),
                   help="check: every check `pagesieve run` makes (the file, users, directory, state database, "
                        "lists); show: the configuration in force (the file layered over the packaged one); "
                        "diff: what it changes from the packaged one; defaults: print the generated settings "
                        "block; regenerate: rewrite that block in the config file; presets: list presets")
    p.set_defaults(func=cmd_config)

    p = sub.add_parser("lists", help="block lists of the ads filter: download them (operator command)")
    p.add_argument("action", choices=("update", "status"),
                   help="update: download filters.ads.download_urls into filters.ads.cache_dir; "
                        "status: which lists the ads filter would use")
    p.set_defaults(func=cmd_lists)

    for extra in _EXTRA_COMMANDS:
        extra(sub)
    _config_everywhere(parser)
    return parser


CONFIG_HELP = "configuration file (default: $PAGESIEVE_CONFIG, else the packaged config.yaml)"


def _config_everywhere(parser: argparse.ArgumentParser, top: bool = True) -> None:
    """``--config FILE`` on ``parser`` and on every sub-command under it, so that it works in the
    same places for every command. Only the top level has a default (None); below it an option not
    given sets nothing, so a ``--config`` given earlier on the line stays."""
    own = next((a for a in parser._actions if "--config" in a.option_strings), None)
    if own is None:
        own = parser.add_argument("--config", metavar="FILE", help=CONFIG_HELP)
    own.default = None if top else argparse.SUPPRESS
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                _config_everywhere(child, top=False)


def _extra_commands():
    """Sub-commands that live with the part of the package they belong to (listed here, explicitly)."""
    out = []
    for module, attr in (("pagesieve.proxy_addons.launcher", "add_parser"),
                         ("pagesieve.evaluation.command", "add_parser"),
                         ("pagesieve.users", "add_parser")):
        try:
            mod = __import__(module, fromlist=[attr])
        except ModuleNotFoundError as err:
            if err.name and module.startswith(err.name):
                continue  # that part is not built yet
            raise
        out.append(getattr(mod, attr))
    return out


_EXTRA_COMMANDS: list = []


def read_source(source: str) -> bytes:
    """The bytes of a file or of standard input; InputError with a one-line reason otherwise."""
    if source == "-":
        return sys.stdin.buffer.read()
    path = Path(source)
    try:
        return path.read_bytes()
    except IsADirectoryError as err:
        raise InputError(f"cannot read {source}: is a directory") from err
    except OSError as err:
        raise InputError(f"cannot read {source}: {err.strerror or err}") from err


def filterer_for(args) -> Filterer:
    """The public API's :class:`~pagesieve.api.Filterer` for ``--config``, ``--preset``, ``--set``
    and ``--output`` (the operator's command line: every scope of setting is allowed)."""
    return Filterer(args.preset, output=getattr(args, "output", None), config=C.load(args.config),
                    settings=dict(C.parse_override(o) for o in args.overrides))


def cmd_filter(args) -> int:
    filterer = filterer_for(args)
    spec = filterer.spec
    data = read_source(args.source)
    store = None
    if args.sibling:
        store = MemorySite()
        for sibling in args.sibling:  # the site's "pages seen before", in the order given
            filterer.process(read_source(sibling), url=Path(sibling).resolve().as_uri(), store=store)
    result = filterer.process(data, url=args.url, store=store)
    sys.stdout.buffer.write(result.body)
    sys.stdout.buffer.flush()
    if args.explain:
        json.dump({"preset": spec.preset, "chain": list(spec.chain), "ms": result.ms,
                   "filters": result.filters, "record": result.record},
                  sys.stderr, indent=2, ensure_ascii=False, default=str)
        sys.stderr.write("\n")
    return 0


def cmd_lists(args) -> int:
    ads = C.load(args.config).resolve(None, {"chain": ["ads"]}).settings_of("ads")
    if args.action == "update":
        results = blocklists.update(ads.download_urls, ads.cache_dir)
        for url, path, what in results:
            print(f"{url}: {'saved to ' + str(path) + ' (' + what + ')' if path else what}")
        return 0 if all(path for _, path, _ in results) else 1
    lists = blocklists.with_downloads(ads.lists, ads.cache_dir)
    usable = [e for e in lists if blocklists.is_url(e) or Path(os.path.expanduser(e)).is_file()]
    for entry in lists:
        print(f"{entry}: {'ok' if entry in usable else 'missing — ' + blocklists.how_to_get(entry)}")
    if not usable:
        print(f"no block list: the ads filter is inactive (apt install {blocklists.DEBIAN_PACKAGE}, "
              "or run `pagesieve lists update`)")
        return 1
    return 0


def cmd_config(args) -> int:
    if args.action == "defaults":
        sys.stdout.write(C.render_defaults())
        return 0
    if args.action == "regenerate":
        path = args.config or C.DEFAULT_CONFIG
        print(f"{path}: {'regenerated' if C.regenerate(path) else 'already up to date'}")
        return 0
    cfg = C.load(args.config)
    if args.action == "presets":
        for name, body in cfg.presets.items():
            print(f"{name}: {body.get('description', '')}")
        return 0
    if args.action == "show":
        sys.stdout.write(yaml.safe_dump(cfg.data, sort_keys=False, allow_unicode=True, width=120))
        return 0
    if args.action == "diff":
        changes = C.differences(cfg)
        for key, default, value in changes:
            shown = "(not in the packaged config)" if default is None else _flow(default)
            print(f"{key}: {shown} -> {_flow(value)}")
        if not changes:
            print(f"{cfg.source}: the same as the packaged configuration")
        return 0
    from pagesieve import preflight

    lines = preflight.check(cfg)
    print(f"{cfg.source}: OK ({len(cfg.presets)} presets: {', '.join(cfg.presets)})")
    for line in lines:
        print(f"  {line}")
    return 0


def _flow(value) -> str:
    return yaml.safe_dump(value, default_flow_style=True, width=1000).strip().removesuffix("...").strip()


def main(argv: list[str] | None = None) -> int:
    global _EXTRA_COMMANDS
    _EXTRA_COMMANDS = _extra_commands()
    parser = build_parser()
    args = parser.parse_args(argv)
    # Commands whose output goes to stdout/stderr for a reader log only problems unless -v: the
    # `--explain` JSON on stderr stays parseable. The proxy logs its progress (one line a page).
    quiet = args.command in ("filter", "eval", "config", "lists")
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING if quiet else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        return args.func(args) or 0
    except (ConfigError, InputError, PagesieveError) as err:
        sys.stderr.write(f"pagesieve: error: {err}\n")
        return EXIT_ERROR
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
