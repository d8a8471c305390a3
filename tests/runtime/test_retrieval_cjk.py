"""Chinese, Japanese and Korean documents are searchable by keywords: CJK text is indexed as
overlapping pairs of characters (bigrams), so a two-character word, a longer phrase, a single
character and mixed CJK and English queries all find their passage. An index written by an
older version (one FTS token per run of Han characters) is migrated when the store opens."""

from __future__ import annotations

import sqlite3
import struct
from pathlib import Path

import pytest

from jupyter_agents import DocumentStore
from jupyter_agents.runtime.retrieval import estimate_tokens, format_references
from jupyter_agents.runtime.retrieval.chunk import chunk_sections
from jupyter_agents.runtime.retrieval.parse import Section

CHINESE = """# 北京

北京是中国的首都，也是全国的政治和文化中心。长城位于北京的北部，每年有很多游客。

## 上海

上海是中国最大的经济城市，位于长江入海口。上海的港口非常繁忙。
"""

JAPANESE = """# 東京

東京は日本の首都です。人口は約千四百万人で、電車がとても便利です。

## 京都

京都には多くの寺院があります。秋の紅葉が有名で、カタカナのコンピューター用語も使います。
"""

KOREAN = """# 서울

서울은 대한민국의 수도입니다. 한국어는 한글로 씁니다.
"""

MIXED = """# Python 教程

Python是一种流行的编程语言。Use pip to install packages（安装软件包）。

# 数据分析

pandas 可以读取 CSV 文件并做数据分析。
"""

ENGLISH = """# Gardening

Tomatoes need full sun and regular watering. Prune the lower leaves.
"""


@pytest.fixture
def store(tmp_path: Path) -> DocumentStore:
    for name, body in {
        "zh.md": CHINESE,
        "ja.md": JAPANESE,
        "ko.md": KOREAN,
        "mixed.md": MIXED,
        "en.md": ENGLISH,
    }.items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    documents = DocumentStore(tmp_path)
    assert documents.index().added == 5
    return documents


TOP: dict[str, str] = {
    # query: the citation of the best passage
    "长城": "zh.md § 北京",  # two characters
    "长江": "zh.md § 北京 > 上海",
    "港口": "zh.md § 北京 > 上海",
    "中国的首都": "zh.md § 北京",  # a phrase
    "上海的港口在哪里": "zh.md § 北京 > 上海",  # a question: one run, no spaces
    "北京在中国的哪里？": "zh.md § 北京",
    "日本の首都": "ja.md § 東京",  # kanji and kana
    "人口": "ja.md § 東京",
    "電車": "ja.md § 東京",
    "寺院": "ja.md § 東京 > 京都",
    "紅葉": "ja.md § 東京 > 京都",
    "コンピューター": "ja.md § 東京 > 京都",  # katakana with a prolonged sound mark
    "ｺﾝﾋﾟｭｰﾀｰ": "ja.md § 東京 > 京都",  # half-width katakana
    "한국어": "ko.md § 서울",  # a word inside 한국어는
    "수도": "ko.md § 서울",
    "Python 教程": "mixed.md § Python 教程",  # mixed CJK and English
    "编程语言": "mixed.md § Python 教程",
    "安装": "mixed.md § Python 教程",
    "pip install": "mixed.md § Python 教程",  # English inside a Chinese document
    "ｐｉｐ": "mixed.md § Python 教程",  # full-width Latin
    "pandas 数据": "mixed.md § 数据分析",
    "CSV文件": "mixed.md § 数据分析",  # English and Chinese with no space
    "watering tomatoes": "en.md § Gardening",  # English keeps stemming
}


@pytest.mark.parametrize("query", list(TOP))
def test_cjk_queries_find_their_passage(store: DocumentStore, query: str) -> None:
    hits = store.search(query, k=3, mode="keyword")
    assert hits and hits[0].citation == TOP[query]


def test_a_word_in_two_languages_finds_both(store: DocumentStore) -> None:
    sources = {hit.source for hit in store.search("首都", k=5, mode="keyword")}
    assert sources == {"zh.md", "ja.md"}  # 中国的首都, 日本の首都


def test_a_single_character_finds_every_word_that_has_it(store: DocumentStore) -> None:
    found = {hit.citation for hit in store.search("京", k=10, mode="keyword")}
    assert found == {"zh.md § 北京", "zh.md § 北京 > 上海", "ja.md § 東京", "ja.md § 東京 > 京都"}


def test_absent_words_find_nothing(store: DocumentStore) -> None:
    assert store.search("广州", mode="keyword") == []
    assert store.search("大阪", mode="keyword") == []
    assert store.search("部北", mode="keyword") == []  # not a pair the text has


OLD_SCHEMA = """
CREATE TABLE files (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL);
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, text TEXT NOT NULL, page INTEGER,
    heading TEXT, embedding BLOB
);
CREATE INDEX chunks_path ON chunks (path);
CREATE VIRTUAL TABLE chunks_fts USING fts5(text, tokenize = 'porter unicode61');
CREATE TABLE sources (path TEXT PRIMARY KEY);
"""


def _old_index(root: Path) -> None:
    """The index as the previous version wrote it: raw text in the FTS table, no version."""
    (root / ".jupyter_agents").mkdir()
    db = sqlite3.connect(root / ".jupyter_agents" / "retrieval.sqlite")
    db.executescript(OLD_SCHEMA)
    text = "北京是中国的首都，也是全国的政治和文化中心。"
    vector = struct.pack("<3f", 1.0, 0.0, 0.0)
    db.execute("INSERT INTO chunks VALUES (1, 'zh.md', ?, NULL, '北京', ?)", (text, vector))
    db.execute("INSERT INTO chunks_fts (rowid, text) VALUES (1, ?)", (f"北京\n{text}",))
    db.execute("INSERT INTO files VALUES ('zh.md', 'old-digest')")
    db.execute("INSERT INTO sources VALUES ('zh.md')")
    db.commit()
    db.close()


def test_an_index_from_the_old_tokenizer_is_migrated_in_place(tmp_path: Path) -> None:
    _old_index(tmp_path)
    old = sqlite3.connect(tmp_path / ".jupyter_agents" / "retrieval.sqlite")
    assert (
        old.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH '首都'").fetchone()[0]
        == 0
    )
    old.close()
    store = DocumentStore(tmp_path)  # no file on disk: only the migrated index answers
    assert [h.citation for h in store.search("首都", mode="keyword")] == ["zh.md § 北京"]
    assert store.sources() == ["zh.md"]
    db = sqlite3.connect(tmp_path / ".jupyter_agents" / "retrieval.sqlite")
    assert db.execute("SELECT embedding FROM chunks").fetchone()[0] is not None  # kept
    assert db.execute("PRAGMA user_version").fetchone()[0] >= 2
    db.close()


def test_an_index_from_a_newer_version_or_damaged_is_rebuilt(tmp_path: Path) -> None:
    (tmp_path / "zh.md").write_text(CHINESE, encoding="utf-8")
    _old_index(tmp_path)
    db = sqlite3.connect(tmp_path / ".jupyter_agents" / "retrieval.sqlite")
    db.execute("PRAGMA user_version = 999")
    db.commit()
    db.close()
    store = DocumentStore(tmp_path)
    assert store.index().added == 1  # rebuilt from the files
    assert store.search("长城", mode="keyword")[0].citation == "zh.md § 北京"
    store.close()
    (tmp_path / ".jupyter_agents" / "retrieval.sqlite").write_bytes(b"not a database" * 100)
    again = DocumentStore(tmp_path)
    assert again.index().added == 1
    assert again.search("长江", mode="keyword")[0].citation == "zh.md § 北京 > 上海"


def test_chinese_text_is_chunked_at_sentence_ends() -> None:
    sentences = "".join(f"这是第{i}个句子，内容关于数据分析和机器学习。" for i in range(300))
    chunks = chunk_sections([Section(sentences)], size=300, overlap=60)
    assert len(chunks) > 10
    assert all(c.text.endswith("。") for c in chunks)
    assert all(len(c.text) <= 300 + 60 for c in chunks)


def test_token_estimates_count_cjk_characters() -> None:
    assert estimate_tokens("hello world, this is English") == 7
    assert estimate_tokens("北京是中国的首都") == 8  # about a token per character
    hits = [
        type("H", (), {"citation": f"zh{i}.md", "text": "北京是中国的首都。" * 100})()
        for i in range(3)
    ]
    refs = format_references(hits, max_ref_token=1000)  # type: ignore[arg-type]
    assert refs.count("[") == 1  # each passage is ~900 tokens, not ~225
