"""EasyList-format block lists: reading them, fetching them, and a cached ``adblock`` engine.

Used once per process by the ``ads`` filter (never per page). A list is a local file or an
http(s) URL. URL lists are downloaded into the cache directory at most once per
``refresh_hours``; a failed download falls back to the cached copy. The compiled engine
(adblock-rust, serialized) is cached too, keyed by the lists' identity — a local file by path,
size and modification time, a downloaded one by its content hash — so the second start-up
deserializes instead of parsing the lists again.

A list that cannot be read is logged once, in one line that says how to get it; the engine is
then built from the lists that remain (with none, :func:`load_engine` returns no engine and the
filter removes nothing). Nothing here raises for a missing or broken list.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import adblock

from pagesieve.core.errors import ConfigError

log = logging.getLogger("pagesieve.analysis.blocklists")

DEBIAN_PACKAGE = "webext-ublock-origin-firefox"
DEBIAN_LIST_DIR = ("/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/"
                   "uBlock0@raymondhill.net/assets/thirdparties/easylist")
DEBIAN_LISTS = (f"{DEBIAN_LIST_DIR}/easylist.txt", f"{DEBIAN_LIST_DIR}/easyprivacy.txt")
# Where each well-known list can be downloaded (named in the "missing list" log line).
DOWNLOADS = {"easylist.txt": "https://easylist.to/easylist/easylist.txt",
             "easyprivacy.txt": "https://easylist.to/easylist/easyprivacy.txt"}
FETCH_TIMEOUT_S = 30
MAX_LIST_BYTES = 32 * 1024 * 1024  # the real EasyList is about 2 MB
# Bumped when the engine cache layout or the way lists are compiled changes.
CACHE_FORMAT = "1"


@dataclass
class EngineLoad:
    """The outcome of :func:`load_engine`."""

    engine: adblock.Engine | None
    #: The lists that went into the engine (paths or URLs).
    sources: list[str] = field(default_factory=list)
    #: The lists that could not be read, each with the reason.
    missing: list[tuple[str, str]] = field(default_factory=list)
    #: The engine file used or written (None without a cache directory).
    cache_file: Path | None = None
    #: True when the engine was deserialized from ``cache_file`` instead of built from the lists.
    from_cache: bool = False
    ms: float = 0.0


def is_url(entry: str) -> bool:
    return entry.startswith(("http://", "https://"))


def how_to_get(entry: str) -> str:
    """The advice of the "missing list" log line."""
    if is_url(entry):
        return "check the address and the network, or download it yourself and list the file instead"
    name = os.path.basename(entry)
    advice = []
    if entry in DEBIAN_LISTS:
        advice.append(f"on Debian/Ubuntu: apt install {DEBIAN_PACKAGE}")
    url = DOWNLOADS.get(name)
    if url:
        advice.append(f"or run `pagesieve lists update` (downloads {url} once into filters.ads.cache_dir)")
    else:
        advice.append("or set filters.ads.lists to an EasyList-format file or http(s) URL")
    return "; ".join(advice)


def downloads_dir(cache_dir: str | None) -> Path | None:
    """Where ``pagesieve lists update`` keeps the lists it downloaded (under ``filters.ads.cache_dir``)."""
    return Path(os.path.expandvars(os.path.expanduser(cache_dir))) / "lists" if cache_dir else None


def with_downloads(lists: tuple[str, ...], cache_dir: str | None) -> tuple[str, ...]:
    """``lists`` with each local file that is missing replaced by the copy of the same list that
    ``pagesieve lists update`` downloaded, when there is one (the Debian package is one source of
    EasyList and EasyPrivacy, the operator's download the other)."""
    where = downloads_dir(cache_dir)
    out = []
    for entry in lists:
        if where is not None and not is_url(entry) and not Path(os.path.expanduser(entry)).is_file():
            copy = where / os.path.basename(entry)
            if copy.is_file():
                entry = str(copy)
        out.append(entry)
    return tuple(out)


def update(urls: tuple[str, ...], cache_dir: str | None) -> list[tuple[str, Path | None, str]]:
    """Download each of ``urls`` once into :func:`downloads_dir` (the operator's command, never a
    page's): per URL, (url, the file written or None, what happened)."""
    where = downloads_dir(cache_dir)
    if where is None:
        raise ConfigError("filters.ads.cache_dir is null: there is nowhere to keep downloaded block lists")
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError(f"filters.ads.cache_dir: cannot create {where}: {err.strerror or err}") from err
    out: list[tuple[str, Path | None, str]] = []
    for url in urls:
        name = os.path.basename(url.split("?", 1)[0]) or "list.txt"
        data, reason = _fetch(url, None, 0)
        if data is None:
            out.append((url, None, reason))
            continue
        _write_atomic(where / name, data)
        out.append((url, where / name, f"{len(data)} bytes"))
    return out


def _cache_path(cache_dir: str | None) -> Path | None:
    if not cache_dir:
        return None
    path = Path(os.path.expandvars(os.path.expanduser(cache_dir)))
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        log.warning("ads: cache directory %s cannot be created (%s); block lists are not cached",
                    path, err.strerror or err)
        return None
    return path


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _fetch(url: str, cache: Path | None, refresh_hours: float) -> tuple[bytes | None, str]:
    """The content of a URL list (from the cache while fresh) and a reason when there is none."""
    copy = cache / ("list-" + hashlib.sha256(url.encode()).hexdigest()[:24] + ".txt") if cache else None
    if copy is not None and copy.exists():
        age_h = (time.time() - copy.stat().st_mtime) / 3600
        if age_h < refresh_hours:
            return copy.read_bytes(), ""
    try:
        req = urllib.request.Request(url, headers={"User-Agent": "pagesieve (block list refresh)"})
        with urllib.request.urlopen(req, timeout=FETCH_TIMEOUT_S) as resp:  # noqa: S310 - http(s) only
            data = resp.read(MAX_LIST_BYTES + 1)
        if len(data) > MAX_LIST_BYTES:
            raise ValueError(f"larger than {MAX_LIST_BYTES // (1024 * 1024)} MB")
    except (OSError, ValueError, urllib.error.URLError) as err:
        reason = f"download failed: {getattr(err, 'reason', None) or err}"
        if copy is not None and copy.exists():
            log.warning("ads: block list %s: %s; using the cached copy from %s",
                        url, reason, time.strftime("%Y-%m-%d %H:%M", time.localtime(copy.stat().st_mtime)))
            return copy.read_bytes(), ""
        return None, reason
    if copy is not None:
        try:
            _write_atomic(copy, data)
        except OSError as err:
            log.warning("ads: cannot cache block list %s in %s (%s)", url, copy.parent, err.strerror or err)
    return data, ""


def _read(entry: str, cache: Path | None, refresh_hours: float) -> tuple[bytes | None, str, str]:
    """(content or None, identity for the engine key, reason when missing). Local files are
    identified by path, size and mtime so a cache hit does not read them."""
    if is_url(entry):
        data, reason = _fetch(entry, cache, refresh_hours)
        ident = f"{entry}:{hashlib.sha256(data).hexdigest()}" if data is not None else ""
        return data, ident, reason
    path = Path(os.path.expanduser(entry))
    try:
        st = path.stat()
    except OSError as err:
        return None, "", "not found" if isinstance(err, FileNotFoundError) else (err.strerror or str(err))
    if not path.is_file():
        return None, "", "not a file"
    return None, f"{path.resolve()}:{st.st_size}:{st.st_mtime_ns}", ""


def _text(entry: str, data: bytes | None) -> str:
    if data is None:
        data = Path(os.path.expanduser(entry)).read_bytes()
    return data.decode("utf-8", errors="replace")


def load_engine(lists: tuple[str, ...], cache_dir: str | None, refresh_hours: float) -> EngineLoad:
    """An adblock engine over ``lists`` (debug mode: results name the matched rule), from the
    cache when the lists are unchanged. Never raises for a missing list: it is logged."""
    t0 = time.perf_counter()
    cache = _cache_path(cache_dir)
    out = EngineLoad(engine=None)
    contents: dict[str, bytes | None] = {}
    idents = []
    for entry in lists:
        data, ident, reason = _read(entry, cache, refresh_hours)
        if not ident:
            out.missing.append((entry, reason))
            log.warning("ads: block list %s %s — %s; ads are not removed by its rules",
                        entry, reason, how_to_get(entry))
            continue
        contents[entry] = data
        idents.append(ident)
        out.sources.append(entry)
    if not out.sources:
        out.ms = round((time.perf_counter() - t0) * 1000, 1)
        return out
    key = hashlib.sha256("\n".join([CACHE_FORMAT, getattr(adblock, "__version__", "?"), *idents]).encode()).hexdigest()
    if cache is not None:
        out.cache_file = cache / f"engine-{key[:32]}.dat"
        if out.cache_file.exists():
            engine = adblock.Engine(adblock.FilterSet(debug=True))
            try:
                engine.deserialize(out.cache_file.read_bytes())
            except (adblock.DeserializationError, OSError) as err:
                log.warning("ads: cached engine %s is unreadable (%s); rebuilding it from the lists",
                            out.cache_file, err)
            else:
                out.engine, out.from_cache = engine, True
                out.ms = round((time.perf_counter() - t0) * 1000, 1)
                return out
    rules = adblock.FilterSet(debug=True)
    for entry in out.sources:
        try:
            rules.add_filter_list(_text(entry, contents[entry]))
        except OSError as err:  # vanished between stat and read
            out.missing.append((entry, err.strerror or str(err)))
            log.warning("ads: block list %s cannot be read (%s) — %s", entry, err.strerror or err, how_to_get(entry))
    out.sources = [s for s in out.sources if s not in dict(out.missing)]
    if not out.sources:
        out.ms = round((time.perf_counter() - t0) * 1000, 1)
        return out
    out.engine = adblock.Engine(rules)
    if out.cache_file is not None:
        try:
            _write_atomic(out.cache_file, bytes(out.engine.serialize()))
        except (OSError, adblock.SerializationError) as err:
            log.warning("ads: cannot write the engine cache %s (%s)", out.cache_file, err)
            out.cache_file = None
    out.ms = round((time.perf_counter() - t0) * 1000, 1)
    return out
