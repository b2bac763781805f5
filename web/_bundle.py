"""The push bundle: one proof run in one msgpack map, every length bounded (``arena push``).

A bundle carries what a server needs to check a run without trusting it: the
case's identity, the controller's module, the run's outcome and build log, and
per match the opponent, its role, the result JSON the run recorded and the
replay's bytes. A ``Bundle`` is the claimed run ``arena.check_pushed_run``
checks: the server plays every match again in a worker process and lists the
run only if each replay comes out byte for byte the same.

Wire format (version 1), a msgpack map with exactly these keys::

    {"format": "foray-run-bundle", "version": 1,
     "case": {"slug": str, "version": int, "manifest_sha256": str},
     "controller": {"name": str, "module": bin},
     "outcome": "win" | "loss" | "draw", "reason": str | nil, "build_log": str,
     "matches": [{"opponent": str, "role": str, "result": map, "replay": bin}, ...]}

Decoding is bounded before anything is built: the whole bundle
(``MAX_BUNDLE_BYTES``); its shape, walked over the bytes without building a
thing (``_shape``: at most ``MAX_DEPTH`` levels and ``MAX_OBJECTS`` objects
in all, where a body of empty arrays would otherwise build a list per byte);
each string, array and map (msgpack's own limits); then every field's type
and range, naming the field that is wrong.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import msgpack

import arena
from replays import MAX_NAME_CHARS

__all__ = [
    "FORMAT",
    "MAX_BUNDLE_BYTES",
    "MAX_MATCHES",
    "VERSION",
    "Bundle",
    "BundleError",
    "PushedMatch",
    "decode_bundle",
]

FORMAT: Final = "foray-run-bundle"
VERSION: Final = 1
MAX_BUNDLE_BYTES: Final = 64 * 1024 * 1024
"""A bundle's largest size: the module (``arena.MAX_MODULE_BYTES`` at most) and every
replay of the run."""
MAX_MATCHES: Final = 1024
"""Most matches in one run (a case has at most 100 seeds and a few opponents)."""
MAX_TEXT_BYTES: Final = 256 * 1024
"""Longest string (UTF-8 bytes): a build log of 64 Ki characters fits."""
MAX_DEPTH: Final = 12
"""Most levels of arrays and maps (a real bundle's match result is a few levels down)."""
MAX_OBJECTS: Final = 128 * MAX_MATCHES
"""Most msgpack objects in a bundle, keys included (a real match takes under a hundred)."""
_SHA256 = re.compile(r"[0-9a-f]{64}")


class BundleError(arena.ArenaError):
    """A push bundle that is not one: the message names the field."""


@dataclass(frozen=True, slots=True)
class PushedMatch:
    """One match of a pushed run."""

    opponent: str
    role: str
    result: Mapping[str, Any]
    """The match JSON the run recorded (``arena match --json``'s keys, without "replay")."""
    replay: bytes


@dataclass(frozen=True, slots=True)
class Bundle:
    """A proof run as pushed: everything the server checks and keeps."""

    case_slug: str
    case_version: int
    manifest_sha256: str
    controller: str
    module: bytes
    outcome: str
    reason: str | None
    build_log: str
    matches: tuple[PushedMatch, ...]

    @property
    def module_sha256(self) -> str:
        return hashlib.sha256(self.module).hexdigest()

    def encode(self) -> bytes:
        """The bundle's bytes (msgpack, version 1)."""
        wire = {
            "format": FORMAT,
            "version": VERSION,
            "case": {
                "slug": self.case_slug,
                "version": self.case_version,
                "manifest_sha256": self.manifest_sha256,
            },
            "controller": {"name": self.controller, "module": self.module},
            "outcome": self.outcome,
            "reason": self.reason,
            "build_log": self.build_log,
            "matches": [
                {
                    "opponent": m.opponent,
                    "role": m.role,
                    "result": dict(m.result),
                    "replay": m.replay,
                }
                for m in self.matches
            ],
        }
        data: bytes = msgpack.packb(wire, use_bin_type=True)
        return data


def decode_bundle(data: bytes) -> Bundle:
    """Read a bundle; ``BundleError`` naming the first field that is wrong."""
    if len(data) > MAX_BUNDLE_BYTES:
        raise BundleError(f"bundle: {len(data):,} bytes, over the {MAX_BUNDLE_BYTES:,}-byte limit")
    _shape(data)
    try:
        wire = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            max_bin_len=MAX_BUNDLE_BYTES,
            max_str_len=MAX_TEXT_BYTES,
            max_array_len=MAX_MATCHES,
            max_map_len=64,
            max_ext_len=0,
        )
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        # ExtraData, StackError (too deep) and FormatError are ValueErrors.
        raise BundleError(f"bundle: not one msgpack map within the limits: {exc}") from None
    top = _fields(
        wire,
        "bundle",
        ("format", "version", "case", "controller", "outcome", "reason", "build_log", "matches"),
    )
    if top["format"] != FORMAT:
        raise BundleError(f"bundle: field 'format': expected {FORMAT!r}")
    if top["version"] != VERSION or isinstance(top["version"], bool):
        raise BundleError(f"bundle: field 'version': only version {VERSION} is read")
    case = _fields(top["case"], "case", ("slug", "version", "manifest_sha256"))
    controller = _fields(top["controller"], "controller", ("name", "module"))
    module = _bytes(controller["module"], "controller.module")
    if len(module) > arena.MAX_MODULE_BYTES:
        raise BundleError(
            f"bundle: field 'controller.module': {len(module):,} bytes, over the "
            f"{arena.MAX_MODULE_BYTES:,}-byte module limit"
        )
    matches = top["matches"]
    if not isinstance(matches, list):
        raise BundleError("bundle: field 'matches': expected an array")
    pushed = []
    for i, m in enumerate(matches):
        where = f"matches[{i}]"
        fields = _fields(m, where, ("opponent", "role", "result", "replay"))
        result = fields["result"]
        if not isinstance(result, dict):
            raise BundleError(f"bundle: field '{where}.result': expected a map")
        pushed.append(
            PushedMatch(
                opponent=_name(fields["opponent"], f"{where}.opponent"),
                role=_name(fields["role"], f"{where}.role"),
                result=result,
                replay=_bytes(fields["replay"], f"{where}.replay"),
            )
        )
    reason = top["reason"]
    if reason is not None and not isinstance(reason, str):
        raise BundleError("bundle: field 'reason': expected a string or nil")
    build_log = top["build_log"]
    if not isinstance(build_log, str):
        raise BundleError("bundle: field 'build_log': expected a string")
    manifest = case["manifest_sha256"]
    if not isinstance(manifest, str) or not _SHA256.fullmatch(manifest):
        raise BundleError("bundle: field 'case.manifest_sha256': expected 64 lowercase hex digits")
    version = case["version"]
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version < 1 << 31:
        raise BundleError("bundle: field 'case.version': expected a positive integer")
    return Bundle(
        case_slug=_name(case["slug"], "case.slug"),
        case_version=version,
        manifest_sha256=manifest,
        controller=_name(controller["name"], "controller.name"),
        module=module,
        outcome=_name(top["outcome"], "outcome"),
        reason=reason,
        build_log=build_log,
        matches=tuple(pushed),
    )


def _fields(obj: object, where: str, keys: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise BundleError(f"bundle: field '{where}': expected a map")
    missing = [k for k in keys if k not in obj]
    extra = sorted(str(k) for k in obj if k not in keys)
    if missing or extra:
        what = "; ".join(
            part
            for part in (
                f"missing {', '.join(missing)}" if missing else "",
                f"unknown {', '.join(extra)}" if extra else "",
            )
            if part
        )
        raise BundleError(f"bundle: field '{where}': {what}")
    return obj


def _name(value: object, where: str) -> str:
    """A name, checked as an upload's is (``arena.name_problem``)."""
    if not isinstance(value, str):
        raise BundleError(f"bundle: field '{where}': expected a string of 1..{MAX_NAME_CHARS}")
    problem = arena.name_problem(value)
    if problem is not None:
        raise BundleError(f"bundle: field '{where}': {problem}")
    return value


def _bytes(value: object, where: str) -> bytes:
    if not isinstance(value, bytes):
        raise BundleError(f"bundle: field '{where}': expected binary data")
    return value


# msgpack's format bytes past the fixed ranges: (size of the length, then of the payload).
# A length of None is a container's count (arrays: n objects, maps: 2n); a fixed payload
# is a number.
_SIZED: Final = {
    0xC4: (1, "bytes"), 0xC5: (2, "bytes"), 0xC6: (4, "bytes"),  # bin
    0xD9: (1, "bytes"), 0xDA: (2, "bytes"), 0xDB: (4, "bytes"),  # str
    0xDC: (2, "array"), 0xDD: (4, "array"), 0xDE: (2, "map"), 0xDF: (4, "map"),
}  # fmt: skip
_FIXED: Final = {
    0xC0: 0, 0xC2: 0, 0xC3: 0,  # nil, false, true
    0xCA: 4, 0xCB: 8,  # float 32, 64
    0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8,  # uint
    0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8,  # int
}  # fmt: skip


def _shape(data: bytes) -> None:
    """Walk the msgpack objects of ``data`` without building any: ``BundleError`` past
    ``MAX_DEPTH`` levels or ``MAX_OBJECTS`` objects, for an extension type, a length past
    the end, or bytes after the first object. What it lets through builds at most
    ``MAX_OBJECTS`` Python objects."""
    end = len(data)
    at = 0
    objects = 0
    left = [1]  # objects still to read at each open level, the outermost first
    while left:
        if left[-1] == 0:
            left.pop()
            continue
        left[-1] -= 1
        objects += 1
        if objects > MAX_OBJECTS:
            raise BundleError(f"bundle: over {MAX_OBJECTS:,} msgpack objects")
        if at >= end:
            raise BundleError("bundle: not one msgpack map within the limits: it is cut short")
        kind = data[at]
        at += 1
        count = 0
        if kind <= 0x7F or kind >= 0xE0:  # fixint
            continue
        if kind <= 0x8F:  # fixmap
            count = 2 * (kind & 0x0F)
        elif kind <= 0x9F:  # fixarray
            count = kind & 0x0F
        elif kind <= 0xBF:  # fixstr
            at += kind & 0x1F
        elif kind in _FIXED:
            at += _FIXED[kind]
        elif kind in _SIZED:
            width, what = _SIZED[kind]
            n = int.from_bytes(data[at : at + width], "big")
            at += width
            if what == "bytes":
                at += n
            else:
                count = 2 * n if what == "map" else n
        else:  # 0xC1 (never used) and the extension types
            raise BundleError(f"bundle: msgpack type 0x{kind:02x} at byte {at - 1} is not read")
        if at > end:
            raise BundleError("bundle: not one msgpack map within the limits: it is cut short")
        if count:
            if len(left) >= MAX_DEPTH:
                raise BundleError(f"bundle: nested over {MAX_DEPTH} levels")
            left.append(count)
    if at != end:
        raise BundleError(f"bundle: {end - at:,} bytes after the bundle's map")
