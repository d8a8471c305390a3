"""Text as the keyword index sees it, and names as people and models see them.

SQLite's ``unicode61`` tokenizer makes one token of a whole run of Han characters (Chinese
and Japanese write no spaces), so a word inside a sentence was never found. Each run of CJK
characters is cut, in the index and in a query alike, in one of two ways (see ``segment``):

- **pairs** (without jieba, and always for runs with kana or Hangul): the run's overlapping
  pairs (``北京是中国`` becomes ``北京 京是 是中 中国``, plus the last character alone). Any word
  of two or more characters is a sequence of pairs the text has, and a single character is a
  prefix of one.
- **words** (with jieba, for runs of Han characters only, which is Chinese; a Japanese
  sentence has kana in it): the run's words, then each of its characters
  (``研究生命起源`` becomes ``研究 生命 起源 研 究 生 命 起 源``). A query's word matches the
  word, or the same characters in a row (a phrase); a query's single character matches the
  character. So ``研究生`` ranks a passage about a graduate student (the word) above one about
  ``研究生命`` (only the characters), which pairs cannot tell apart, and a question's pairs
  across words (``型要`` in ``这个模型要训练多久``) no longer match passages by chance.

Latin text goes through unchanged, so its stemming and BM25 ranking stay as they were. Both
sides are NFKC-normalised first (full-width Latin, half-width katakana).
"""

from __future__ import annotations

import math
import operator
import re
import unicodedata
from collections.abc import Callable, Iterator

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
_HAN_RUN = re.compile(
    "[\u3005-\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]+"
)
"""A run of Han characters alone (with 々 〆 〇): cut into words when there is a segmenter."""
_WIDE = re.compile(f"[{_CJK}\u3000-\u303f\uff00-\uffef]")  # and CJK punctuation, full width
_WORD = re.compile(r"\w+")
MAX_QUERY_TERMS = 200
"""Distinct terms of one query kept (a pasted page is a long query, not an attack on FTS5)."""

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

Words = Callable[[str], list[str]]
"""Cuts a run of Han characters into words (see ``segment``)."""


def _pairs(run: str) -> list[str]:
    """A run of CJK characters as its overlapping pairs, and its last character alone (so
    that every character starts a token)."""
    return [*map(operator.add, run, run[1:]), run[-1]]


def _run_tokens(run: str, words: Words | None) -> list[str]:
    """What the index holds for one run of CJK characters."""
    if words is None or not _HAN_RUN.fullmatch(run):
        return _pairs(run)
    return [word for word in words(run) if len(word) > 1] + list(run)


def index_text(text: str, words: Words | None = None) -> str:
    """``text`` as it goes into the full-text index, runs of Han characters cut by ``words``
    when given, in pairs otherwise."""

    def spaced(found: re.Match[str]) -> str:
        return f" {' '.join(_run_tokens(found.group(), words))} "

    return _CJK_RUN.sub(spaced, unicodedata.normalize("NFKC", text))


def _quoted(*tokens: str) -> str:
    """An FTS5 string (a phrase when there are several tokens)."""
    return '"' + " ".join(tokens).replace('"', '""') + '"'


def _run_terms(run: str, words: Words | None) -> Iterator[str]:
    """The terms of a query for one run of CJK characters, cut as ``index_text`` cuts."""
    if words is None or not _HAN_RUN.fullmatch(run):
        if len(run) == 1:
            yield f"{_quoted(run)} *"  # the start of a pair, a last character or a character
        else:
            yield from map(_quoted, _pairs(run)[:-1])
        return
    for word in words(run):
        if len(word) == 1:
            yield f"{_quoted(word)} *"  # a character, or the start of a pair (kana runs)
            continue
        yield _quoted(word)  # the word as the passage's segmenter cut it
        yield _quoted(*word)  # the same characters in a row, however it was cut there
        if len(word) > 2:
            yield _quoted(*_pairs(word)[:-1])  # in a run with kana, which is cut in pairs


def match_expression(query: str, words: Words | None = None) -> str | None:
    """An FTS5 ``MATCH`` expression for the words of ``query`` (any of them; never FTS syntax
    from the user), cut as ``index_text`` cuts with the same ``words``; None when it has
    no words."""
    terms: dict[str, None] = {}  # in order, once each
    normal = unicodedata.normalize("NFKC", query)
    position = 0
    for found in _CJK_RUN.finditer(normal):
        terms.update(dict.fromkeys(map(_quoted, _WORD.findall(normal[position : found.start()]))))
        terms.update(dict.fromkeys(_run_terms(found.group(), words)))
        position = found.end()
    terms.update(dict.fromkeys(map(_quoted, _WORD.findall(normal[position:]))))
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
