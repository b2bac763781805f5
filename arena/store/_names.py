"""Names: which a controller may have, and which look the same as another.

One function says whether a name is acceptable (``name_problem``), one what a
name looks like (``name_keys``). The site refuses a name from the network
that is not acceptable (an upload's, a push's), and one that looks the same
as a stored controller's (``Store.controller_like``) as taken. The store
itself keeps the names the command line plays under as they are (a file's
name, with whatever its file system allows), checking only their length.

- **Acceptable**: 1..``MAX_NAME_CHARS`` characters, none of them a control
  character, a lone surrogate, a code point Unicode does not assign, a line or
  paragraph separator, or a bidirectional control (those reorder how the rest
  shows: a name could show as another); and at least one visible character.
- **Looks the same** (UTS #39's idea of a skeleton): two names look the same
  when they share a key. A name's keys are its text after NFKC normalization,
  the removal of the default-ignorable code points (a zero-width space, a soft
  hyphen, a variation selector), spaces trimmed and runs of spaces made one,
  and each character replaced by a representative of the characters Unicode
  lists as confusable with it (``confusables.txt``, read from the
  ``confusable_homoglyphs`` package): once as it is, once case-folded. So
  ``rаndom`` with a Cyrillic ``а``, ``random`` with a zero-width space,
  ``Random``, ``RANDOM`` and ``ｒａｎｄｏｍ`` all look like ``random``; ``lron``
  looks like ``Iron`` (a capital I and a small l are confusable), though case
  folding alone makes the I an i.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Final

from replays import MAX_NAME_CHARS

__all__ = ["name_keys", "name_problem"]

# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt), as ranges.
_IGNORABLE: Final = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
_BIDI_CONTROLS: Final = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e") | frozenset(
    "\u2066\u2067\u2068\u2069"
)
_NOT_CHARACTERS: Final = {
    "Cc": "a control character",
    "Cs": "a lone surrogate",
    "Cn": "a code point Unicode does not assign",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}
_SPACES: Final = re.compile(r"\s+")


@functools.cache
def _ignored() -> re.Pattern[str]:
    """The ignorable code points as a pattern: compiled when a name is first compared (a
    class of Unicode ranges costs as much to compile as a small module to import, and
    recording a match compares no name)."""
    return re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in _IGNORABLE) + "]")


def name_problem(name: object) -> str | None:
    """What makes ``name`` unacceptable as a controller's name, or None if it is acceptable."""
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME_CHARS:
        length = len(name) if isinstance(name, str) else "not a string"
        return f"1..{MAX_NAME_CHARS} characters, not {length}"
    for i, c in enumerate(name):
        what = _NOT_CHARACTERS.get(unicodedata.category(c))
        if what is None and c in _BIDI_CONTROLS:
            what = "a bidirectional control (it reorders how the name shows)"
        if what is not None:
            return f"character {i} (U+{ord(c):04X}) is {what}: not in a name"
    if not any(name_keys(name)):
        return "it has no visible character"
    return None


@functools.lru_cache(maxsize=4096)  # the stored names, read again at each upload
def name_keys(name: str) -> frozenset[str]:
    """What ``name`` looks like, as it is and case-folded: two names sharing a key are taken
    for one another (see the module's doc). Empty keys for a name with nothing visible."""
    text = _SPACES.sub(" ", _ignored().sub("", unicodedata.normalize("NFKC", name))).strip()
    return frozenset((_skeleton(text), _skeleton(text.casefold())))


def _skeleton(text: str) -> str:
    table = _confusables()
    return unicodedata.normalize("NFKC", "".join(table.get(c, c) for c in text))


@functools.cache
def _confusables() -> dict[str, str]:
    """Each character Unicode lists as confusable with another, to one representative of those
    it is confusable with (the smallest code point), one character for one."""
    from confusable_homoglyphs.confusables import confusables_data

    # The package lists each pair both ways (a character and its prototype), marking
    # right-to-left characters with LRMs; classes of single characters are joined here.
    parent: dict[str, str] = {}

    def root(c: str) -> str:
        while parent.get(c, c) != c:
            c = parent[c]
        return c

    for key, entries in confusables_data.items():
        a = key.replace("\u200e", "")
        for entry in entries:
            b = str(entry["c"]).replace("\u200e", "")
            if len(a) == 1 and len(b) == 1:
                ra, rb = root(a), root(b)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
    return {c: r for c in parent if (r := root(c)) != c}
