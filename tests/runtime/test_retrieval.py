"""DocumentStore and the retrieval tool on a small corpus written here: every document kind,
keyword, vector and hybrid search, citations, incremental indexing, the reference budget."""

from __future__ import annotations

import http.server
import itertools
import json
import random
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from jupyter_agents import Agent, DocumentStore, OpenAIResponsesModel, Runner, UserError
from jupyter_agents.runtime.retrieval import format_references
from jupyter_agents.runtime.retrieval.chunk import chunk_sections
from jupyter_agents.runtime.retrieval.parse import Section
from jupyter_agents.testing import ScriptedModel, text, tool_call
from jupyter_agents.testing._server_embeddings import embed_text
from jupyter_agents.testing.server import FakeOpenAIServer, Reply, ReplyText, ReplyToolCall

from ..recorded import json_body

FILLER = [
    "quarterly",
    "planning",
    "meeting",
    "budget",
    "review",
    "roadmap",
    "hiring",
    "onboarding",
    "office",
    "coffee",
    "printer",
    "calendar",
    "project",
    "status",
    "update",
    "release",
    "notes",
    "weather",
    "lunch",
    "travel",
]


def write_corpus(root: Path) -> Path:
    """A few dozen documents of every kind, each with words only it has."""
    rng = random.Random(7)
    for i in range(24):
        words = " ".join(rng.choice(FILLER) for _ in range(120))
        (root / f"notes_{i:02d}.txt").write_text(f"Notes {i}. {words}.\n")
    (root / "install.md").write_text(
        "# Install\n\nPick your system.\n\n## Linux\n\nRun apt-get install bubblewrap first.\n\n"
        "## macOS\n\nUse brew to install the toolchain.\n"
    )
    (root / "faq.html").write_text(
        "<html><head><script>var secretword = 1;</script><style>p{}</style></head><body>"
        "<h1>FAQ</h1><h2>Billing</h2><p>Invoices are sent monthly; refunds take five days."
        "</p></body></html>"
    )
    notebook = {
        "cells": [
            {"cell_type": "markdown", "source": ["# Churn analysis\n", "Customers who leave."]},
            {"cell_type": "code", "source": "churn_rate = lost / total"},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (root / "analysis.ipynb").write_text(json.dumps(notebook))
    hidden = root / ".git"
    hidden.mkdir()
    (hidden / "notes.txt").write_text("kangaroo kangaroo kangaroo")  # hidden: never indexed
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.set_font("helvetica", size=12)
    for page_text in (
        "Field guide introduction to wildlife.",
        "Kangaroo migration follows the rains across the plains.",
        "Appendix with maps.",
    ):
        pdf.add_page()
        pdf.multi_cell(0, 10, page_text)
    pdf.output(str(root / "guide.pdf"))
    docx = pytest.importorskip("docx")
    document = docx.Document()
    document.add_heading("Vacation", level=1)
    document.add_paragraph("Employees get 25 days of paid leave every year.")
    document.add_heading("Equipment", level=1)
    document.add_paragraph("Laptops are replaced every three years.")
    document.save(str(root / "policy.docx"))
    return root


def server_embed(texts: list[str]) -> list[list[float]]:
    return [embed_text(t) for t in texts]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    return write_corpus(tmp_path / "docs")


@pytest.fixture
def client(openai_server: FakeOpenAIServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=openai_server.base_url, api_key=openai_server.api_key, max_retries=0
    )


def test_keyword_search_finds_each_kind_and_cites_it(tmp_path: Path) -> None:
    store = DocumentStore(write_corpus(tmp_path))
    report = store.index()
    assert report.added == 29 and not report.skipped
    queries = (
        "kangaroo migration",
        "paid leave",
        "brew toolchain",
        "refunds invoices",
        "churn analysis customers",
        "apt-get bubblewrap",
    )
    top = {q: store.search(q, k=1, mode="keyword")[0].citation for q in queries}
    assert top == {
        "kangaroo migration": "guide.pdf, page 2",
        "paid leave": "policy.docx § Vacation",
        "brew toolchain": "install.md § Install > macOS",
        "refunds invoices": "faq.html § FAQ > Billing",
        "churn analysis customers": "analysis.ipynb § cell 1",
        "apt-get bubblewrap": "install.md § Install > Linux",
    }
    assert store.search("secretword", mode="keyword") == []  # scripts are not text
    assert all(h.source != ".git/notes.txt" for h in store.search("kangaroo", mode="keyword"))
    for nasty in ('AND OR ( "*', "NEAR(", '"', "", "-", "title:x"):
        store.search(nasty, mode="keyword")  # user text never becomes FTS syntax


@pytest.mark.http
async def test_vector_and_hybrid_search_with_the_embeddings_api(
    corpus: Path, client: openai.AsyncOpenAI, openai_server: FakeOpenAIServer
) -> None:
    store = DocumentStore(corpus, client=client)
    await store.aindex()
    vector = await store.asearch("where does the kangaroo migration go", k=3, mode="vector")
    assert vector[0].citation == "guide.pdf, page 2"
    hybrid = await store.asearch("employees paid leave days", k=3, mode="hybrid")
    assert hybrid[0].citation == "policy.docx § Vacation"
    calls = [r for r in openai_server.requests if r.path == "/v1/embeddings"]
    assert calls and all(json_body(r)["model"] == "text-embedding-3-small" for r in calls)


async def test_a_users_embedder_and_incremental_indexing(corpus: Path) -> None:
    embedded: list[str] = []

    def embed(texts: list[str]) -> list[list[float]]:
        embedded.extend(texts)
        return server_embed(texts)

    store = DocumentStore(corpus, embed=embed)
    first = await store.aindex()
    assert first.added == 29 and first.chunks == store.count()
    embedded.clear()
    again = await store.aindex()
    assert (again.added, again.updated, again.unchanged) == (0, 0, 29) and embedded == []
    (corpus / "install.md").write_text("# Install\n\n## Windows\n\nUse winget for everything.\n")
    (corpus / "faq.html").unlink()
    changed = await store.aindex()
    assert (changed.updated, changed.removed, changed.unchanged) == (1, 1, 27)
    assert embedded == ["Use winget for everything."]  # only the changed file was embedded
    assert (await store.asearch("winget", k=1))[0].citation == "install.md § Install > Windows"
    assert await store.asearch("refunds invoices", mode="keyword") == []  # its chunks are gone
    vector = await store.asearch("kangaroo migration rains", k=1, mode="vector")
    assert vector[0].citation == "guide.pdf, page 2"


def test_sources_limit_the_store_and_stay_inside_it(corpus: Path, tmp_path: Path) -> None:
    store = DocumentStore(corpus)
    report = store.add("install.md", "policy.docx")
    assert report.added == 2 and store.sources() == ["install.md", "policy.docx"]
    assert store.search("kangaroo", mode="keyword") == []  # not added
    with pytest.raises(UserError, match="outside the store's folder"):
        store.add(tmp_path)
    with pytest.raises(UserError, match="does not exist"):
        store.add("nope.md")
    with pytest.raises(UserError, match="Vector search needs embeddings"):
        store.search("x", mode="vector")
    assert store.search("paid leave")[0].citation == "policy.docx § Vacation"  # hybrid: keywords


def test_a_missing_parser_skips_its_files_and_says_how_to_fix_it(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)  # as if it were not installed
    report = DocumentStore(corpus).index()
    assert list(report.skipped) == ["guide.pdf"]
    assert "pip install 'jupyter-agents[docs-parsers]'" in report.skipped["guide.pdf"]
    assert report.added == 28


def test_chunks_overlap_and_references_keep_to_the_budget() -> None:
    sentences = " ".join(f"Sentence number {i} is here." for i in range(200))
    chunks = chunk_sections([Section(sentences, heading="Long")], size=300, overlap=60)
    assert len(chunks) > 10 and all(len(c.text) <= 300 + 40 for c in chunks)
    for before, after in itertools.pairwise(chunks):
        assert after.text[:20] in before.text  # each starts with the end of the one before
    store_hits = [
        type("H", (), {"citation": f"doc{i}.md", "text": "word " * 100})() for i in range(5)
    ]
    refs = format_references(store_hits, max_ref_token=300)
    assert refs.count("[") == 2 and refs.startswith("[1] doc0.md\n")  # 2 fit in ~300 tokens
    alone = format_references(store_hits[:1], max_ref_token=20)
    assert alone.endswith("…") and len(alone) <= 80
    assert format_references([]) == "No passages matched."


async def test_the_retrieval_tool_answers_with_cited_passages(corpus: Path) -> None:
    store = DocumentStore(corpus)
    model = ScriptedModel([[tool_call("retrieval", {"query": "paid leave"})], [text("25.")]])
    agent = Agent(
        name="a",
        model=model,
        tools=[{"name": "retrieval", "store": store, "max_ref_token": 200}],  # type: ignore[list-item]
    )
    await Runner.run(agent, "How much leave?")
    answer = model.requests[1].input[-1]["output"]
    assert answer.startswith("[1] policy.docx § Vacation\n") and "25 days" in answer
    with pytest.raises(UserError, match="needs documents"):
        Agent(name="b", tools=["retrieval"])  # type: ignore[list-item]


@pytest.mark.http
async def test_retrieval_end_to_end_over_http(
    corpus: Path, client: openai.AsyncOpenAI, openai_server: FakeOpenAIServer
) -> None:
    openai_server.enqueue(
        Reply([ReplyToolCall("retrieval", {"query": "kangaroo migration"}, call_id="r1")]),
        Reply([ReplyText("They follow the rains (guide.pdf, page 2).")]),
    )
    store = DocumentStore(corpus, client=client)
    agent = Agent(
        name="a",
        model=OpenAIResponsesModel("gpt-test", openai_client=client),
        tools=[{"name": "retrieval", "store": store}],  # type: ignore[list-item]
    )
    result = await Runner.run(agent, "Where do kangaroos go?")
    assert result.final_output.endswith("(guide.pdf, page 2).")
    answer = json_body(openai_server.model_requests[1])["input"][-1]["output"]
    assert answer.startswith("[1] guide.pdf, page 2\n")


# -- an unreachable embeddings API: keyword search, with a warning ------------------------------


class _Embeddings(http.server.BaseHTTPRequestHandler):
    """``/v1/embeddings`` that fails: 500, or no answer until the test ends."""

    behaviour = "500"
    released = threading.Event()
    calls: list[str] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.calls.append(self.path)
        if self.behaviour == "hang":
            self.released.wait(30)
            return
        body = b'{"error": {"message": "upstream down", "type": "server_error"}}'
        self.send_response(500)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(params=["refused", "500", "hang"])
def broken_client(request: pytest.FixtureRequest) -> Iterator[tuple[openai.AsyncOpenAI, list[str]]]:
    """A client whose embeddings API refuses connections, answers 500, or never answers."""
    calls: list[str] = []
    if request.param == "refused":
        with socket.socket() as closed:
            closed.bind(("127.0.0.1", 0))
            port = closed.getsockname()[1]  # nobody listens here once it closes
        yield _client(f"http://127.0.0.1:{port}/v1"), calls
        return

    class Handler(_Embeddings):
        behaviour = request.param
        released = threading.Event()

    Handler.calls = calls
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield _client(f"http://127.0.0.1:{server.server_address[1]}/v1"), calls
    finally:
        Handler.released.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


def _client(base_url: str) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=base_url, api_key="sk-test", max_retries=0, timeout=1.0)


async def test_an_unreachable_embeddings_api_falls_back_to_keywords(
    corpus: Path,
    broken_client: tuple[openai.AsyncOpenAI, list[str]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    client, calls = broken_client
    store = DocumentStore(corpus, client=client, embedding_timeout=1.0)
    report = await store.aindex()  # does not fail
    assert report.added == 29 and store.count() == report.chunks
    assert any(w.startswith("Embeddings unavailable") for w in report.warnings)
    assert "keyword search" in caplog.text
    for mode in ("hybrid", "vector"):
        result = await store.asearch_result("employees paid leave", k=3, mode=mode)
        assert result.mode == "keyword" and result.hits[0].citation == "policy.docx § Vacation"
        assert result.warnings and "keywords only" in result.warnings[0]
    assert store.embedding_error is not None
    before = len(calls)
    await store.asearch("kangaroo", mode="hybrid")
    assert len(calls) == before  # no new attempt while the failure is recent
    model = ScriptedModel([[tool_call("retrieval", {"query": "paid leave"})], [text("25.")]])
    agent = Agent(name="a", model=model, tools=[{"name": "retrieval", "store": store}])  # type: ignore[list-item]
    await Runner.run(agent, "How much leave?")
    answer = model.requests[1].input[-1]["output"]
    assert answer.startswith("[1] policy.docx § Vacation\n")
    assert "Note: searched by keywords only" in answer


async def test_embeddings_come_back_after_a_failure(corpus: Path) -> None:
    failing = True

    def embed(texts: list[str]) -> list[list[float]]:
        if failing:
            raise ConnectionError("embeddings service down")
        return server_embed(texts)

    store = DocumentStore(corpus, embed=embed, embedding_retry_seconds=0)
    report = await store.aindex()
    assert report.warnings == [
        "Embeddings unavailable (ConnectionError: embeddings service down): "
        "indexed for keyword search; passages are embedded on a later search."
    ]
    failing = False
    result = await store.asearch_result("kangaroo migration rains", k=1, mode="vector")
    assert result.mode == "vector" and result.warnings == []
    assert result.hits[0].citation == "guide.pdf, page 2" and store.embedding_error is None
