"""Decode a response body (``Content-Encoding``) without ever holding more than a limit.

mitmproxy's ``get_content`` inflates a body in full: a 1 MB gzip body can become 1 GB. Here each
codec is run incrementally with a bound on its output (zlib's ``max_length``, brotli's
``output_buffer_limit``, zstandard's sized reads), so decoding stops as soon as the output passes
``limit``: :func:`decode_capped` then returns None and the caller serves the original bytes.
The work is CPU-bound; the filtering addon runs it in a thread for bodies above
:data:`INLINE_DECODE_BYTES` so the event loop never inflates a large body.
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Callable

import brotli
import zstandard

#: Output produced per step of a decoder (bytes): the most a decoder holds beyond ``limit``.
STEP_BYTES = 1 << 20
#: Compressed bodies up to this size are decoded on the event loop (bytes). Inflating 64 KB of
#: gzip takes well under a millisecond; larger ones go to a thread.
INLINE_DECODE_BYTES = 64 * 1024


#: The most deflate can inflate (258 bytes a 2-bit code: RFC 1951), per input byte.
MAX_DEFLATE_RATIO = 1032


class Overflow(Exception):
    """The decoded body passed the limit."""


def _zlib(raw: bytes, limit: int, wbits: int) -> bytes:
    out = bytearray()
    data = raw
    while True:
        d = zlib.decompressobj(wbits)
        while data and not d.eof:
            out += d.decompress(data, STEP_BYTES)
            if len(out) > limit:
                raise Overflow
            data = d.unconsumed_tail
        if not d.eof:
            raise ValueError("truncated stream")
        data = d.unused_data
        if not (wbits == 47 and data[:2] == b"\x1f\x8b"):  # another gzip member follows
            return bytes(out)


def _gzip(raw: bytes, limit: int) -> bytes:
    if declared_size(raw, "gzip") > limit:  # no need to inflate what says it is too large
        raise Overflow
    return _zlib(raw, limit, 47)  # 32 + 15: gzip or zlib header, as mitmproxy's decode_gzip


def _deflate(raw: bytes, limit: int) -> bytes:
    try:
        return _zlib(raw, limit, 15)
    except zlib.error:  # servers that send raw deflate (no zlib header), as mitmproxy accepts
        return _zlib(raw, limit, -15)


def _brotli(raw: bytes, limit: int) -> bytes:
    d = brotli.Decompressor()
    out = bytearray(d.process(raw, output_buffer_limit=STEP_BYTES))
    while len(out) <= limit and not d.can_accept_more_data():
        out += d.process(b"", output_buffer_limit=STEP_BYTES)
    if len(out) > limit:
        raise Overflow
    if not d.is_finished():
        raise ValueError("truncated brotli stream")
    return bytes(out)


def _zstd(raw: bytes, limit: int) -> bytes:
    if declared_size(raw, "zstd") > limit:
        raise Overflow
    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw), read_across_frames=True)
    out = bytearray()
    while True:
        chunk = reader.read(STEP_BYTES)
        if not chunk:
            return bytes(out)
        out += chunk
        if len(out) > limit:
            raise Overflow


def declared_size(raw: bytes, coding: str) -> int:
    """The decoded size a body states about itself, or -1 when it states none: a gzip member's
    trailer (ISIZE, the size modulo 2**32; the last member's when several) and a zstd frame's
    header (its optional content size). Only a size above the limit is trusted, to stop early: a
    body that understates its size is still inflated with the cap, so a false value costs nothing
    but the early exit, and an honest large body is refused without inflating a byte of it."""
    if coding == "gzip" and len(raw) >= 18 and raw[:2] == b"\x1f\x8b":
        size = int.from_bytes(raw[-4:], "little")
        # Deflate inflates at most 1032:1, so a larger claim is no trailer (a corrupt body: inflate
        # it and report that).
        return size if size <= MAX_DEFLATE_RATIO * len(raw) else -1
    if coding == "zstd":
        try:
            return zstandard.frame_content_size(raw)
        except zstandard.ZstdError:
            return -1
    return -1


DECODERS: dict[str, Callable[[bytes, int], bytes]] = {
    "gzip": _gzip, "x-gzip": _gzip, "deflate": _deflate, "br": _brotli, "zstd": _zstd,
}


def decode_capped(raw: bytes, content_encoding: str, limit: int) -> bytes | None:
    """``raw`` decoded as ``content_encoding`` says (a list is undone last-applied first), or None
    when any stage's output would pass ``limit`` bytes. ValueError for an unknown coding or a
    corrupt body."""
    codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
    body = raw
    for coding in reversed(codings):
        if coding == "identity":
            continue
        decoder = DECODERS.get(coding)
        if decoder is None:
            raise ValueError(f"unknown content-encoding {coding!r}")
        if not body:
            continue
        try:
            body = decoder(body, limit)
        except Overflow:
            return None
        except (zlib.error, brotli.error, zstandard.ZstdError, ValueError) as err:
            raise ValueError(f"{coding}: {err}") from err
    return body if len(body) <= limit else None
