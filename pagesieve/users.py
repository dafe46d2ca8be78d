"""``pagesieve users add|remove|list``: the htpasswd file of the proxy's users.

    pagesieve users add alice                 # asks the password twice (on a terminal)
    echo "$PW" | pagesieve users add alice --password-stdin
    pagesieve users list
    pagesieve users remove alice              # also deletes alice's saved settings

The file and the password rules are :mod:`pagesieve.store.users`.
"""

from __future__ import annotations

import getpass
import sys

from pagesieve.core.errors import InputError
from pagesieve.engine import config as C
from pagesieve.store.profiles import ProfileStore
from pagesieve.store.users import Htpasswd, check_name, hash_password


def _read_password(args) -> str:
    if args.password_stdin:
        line = sys.stdin.readline()
        if not line:
            raise InputError("--password-stdin: no password on standard input")
        return line.rstrip("\r\n")
    if not sys.stdin.isatty():
        raise InputError("not a terminal: pass the password on standard input with --password-stdin")
    first = getpass.getpass("Password: ")
    if first != getpass.getpass("Password (again): "):
        raise InputError("the two passwords differ; nothing changed")
    return first


def _settings(args):
    cfg = C.load(args.config)
    users = cfg.globals["users"]
    return cfg, Htpasswd(args.htpasswd or users.htpasswd)


def cmd_users(args) -> int:
    cfg, ht = _settings(args)
    entries = ht.read()
    if args.action == "list":
        for name in entries:
            print(name)
        return 0
    name = check_name(args.name)
    if args.action == "add":
        existed = name in entries
        if existed and not args.update:
            raise InputError(f"user {name!r} already exists in {ht.path}; use --update to change the password")
        entries[name] = hash_password(_read_password(args))
        ht.write(entries)
        print(f"{ht.path}: {'updated' if existed else 'added'} {name}")
        return 0
    if name not in entries:
        raise InputError(f"user {name!r} is not in {ht.path}")
    del entries[name]
    ht.write(entries)
    dropped = ""
    if not args.keep_profile:
        store = ProfileStore(cfg)
        try:
            if store.delete(name):
                dropped = " and their saved settings"
        finally:
            store.close()
    print(f"{ht.path}: removed {name}{dropped}")
    return 0


def add_parser(sub) -> None:
    """``pagesieve users add|remove|list`` (called by :mod:`pagesieve.cli`)."""
    p = sub.add_parser("users", help="manage the proxy's users (htpasswd file, bcrypt)")
    p.add_argument("--htpasswd", metavar="FILE", help="password file (default: the config's users.htpasswd)")
    acts = p.add_subparsers(dest="action", required=True, parser_class=sub._parser_class)
    a = acts.add_parser("add", help="add a user (asks the password twice, or reads it with --password-stdin)")
    a.add_argument("name")
    a.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin")
    a.add_argument("--update", action="store_true", help="change the password of an existing user")
    r = acts.add_parser("remove", help="remove a user and their saved settings")
    r.add_argument("name")
    r.add_argument("--keep-profile", action="store_true", help="keep the user's saved settings")
    acts.add_parser("list", help="list user names")
    p.set_defaults(func=cmd_users)

