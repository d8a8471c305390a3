"""Text as the keyword index sees it, and names as people and models see them.

SQLite's ``unicode61`` tokenizer makes one token of a whole run of Han characters (Chinese
and Japanese write no spaces), so a word inside a sentence was never found. The index stores
each run of CJK characters as its overlapping pairs (``北京是中国`` becomes ``北京 京是 是中
中国``, plus the last character alone) and a query is cut the same way: any word of two or
more characters is a sequence of pairs the text has, and a single character is a prefix of
one. Latin text goes through unchanged, so its stemming and BM25 ranking stay as they were.
Both sides are NFKC-normalised first (full-width Latin, half-width katakana).
"""

from __future__ import annotations

import math
import operator
import re
import unicodedata

__all__ = ["estimate_tokens", "index_text", "match_expression", "name_problem", "printable"]

_CJK = (
    "\u1100-\u11ff"  # Hangul jamo
    "\u3005-\u3007"  # 々 〆 〇
    "\u3040-\u30ff"  # hiragana, katakana (with ー)
    "\u3130-\u318f"  # Hangul compatibility jamo
    "\u31f0-\u31ff"  # katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\ua960-\ua97f"  # Hangul jamo extended A
    "\uac00-\ud7ff"  # Hangul syllables, jamo extended B
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\U00020000-\U0003134f"  # CJK extensions B to G
)
_CJK_RUN = re.compile(f"[{_CJK}]+")
_WIDE = re.compile(f"[{_CJK}\u3000-\u303f\uff00-\uffef]")  # and CJK punctuation, full width
_WORD = re.compile(r"\w+")
MAX_QUERY_TERMS = 200
"""Distinct terms of one query kept (a pasted page is a long query, not an attack on FTS5)."""

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _pairs(run: str) -> list[str]:
    """A run of CJK characters as its overlapping pairs, and its last character alone (so
    that every character starts a token)."""
    return [*map(operator.add, run, run[1:]), run[-1]]


def _spaced_pairs(found: re.Match[str]) -> str:
    return f" {' '.join(_pairs(found.group()))} "


def index_text(text: str) -> str:
    """``text`` as it goes into the full-text index."""
    return _CJK_RUN.sub(_spaced_pairs, unicodedata.normalize("NFKC", text))


def match_expression(query: str) -> str | None:
    """An FTS5 ``MATCH`` expression for the words of ``query`` (any of them; never FTS syntax
    from the user), or None when it has no words."""
    terms: dict[str, None] = {}  # in order, once each
    normal = unicodedata.normalize("NFKC", query)
    position = 0
    for found in _CJK_RUN.finditer(normal):
        for word in _WORD.findall(normal[position : found.start()]):
            terms[f'"{word}"'] = None
        run = found.group()
        if len(run) == 1:
            terms[f'"{run}" *'] = None  # the start of a pair, or a last character
        else:
            terms.update((f'"{pair}"', None) for pair in _pairs(run)[:-1])
        position = found.end()
    for word in _WORD.findall(normal[position:]):
        terms[f'"{word}"'] = None
    return " OR ".join(list(terms)[:MAX_QUERY_TERMS]) or None


def estimate_tokens(text: str) -> int:
    """About how many tokens ``text`` is: one per CJK character, one per four other
    characters (close for English)."""
    wide = sum(1 for _ in _WIDE.finditer(text))
    return wide + math.ceil((len(text) - wide) / 4)


def _escape(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if char in _ESCAPES:
        return _ESCAPES[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _unsafe(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cs", "Zl", "Zp") or char in _BIDI


def printable(text: str) -> str:
    """``text`` with control characters, line and paragraph separators, bidirectional
    controls and undecodable bytes escaped (``\\n``, ``\\x1b``, ``\\u202e``): a name shown to a
    model or a person cannot start a line, recolour a terminal or reverse the text."""
    if text.isprintable() and not _BIDI.intersection(text):
        return text
    return "".join(_escape(c) if _unsafe(c) else c for c in text)


def name_problem(name: str) -> str | None:
    """Why a file name is not indexed (it cannot be shown as it is), or None."""
    if any(0xDC80 <= ord(c) <= 0xDCFF for c in name):
        return "its name is not valid UTF-8: not read"
    if any(_unsafe(c) for c in name):
        return "its name has control characters: not read"
    return None
