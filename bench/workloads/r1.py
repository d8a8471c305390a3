"""R1: retrieval (``DocumentStore``): indexing throughput and keyword queries over 10,000 chunks.

A folder of generated text files (1,000 files of about 10 chunks each, words drawn from a
5,000-word vocabulary) is indexed once (chunks per second: parsing, chunking, SQLite and FTS5;
no embeddings), then keyword queries of three words each are timed. Ours only: the peer has no
document store.
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from pathlib import Path

from jupyter_agents.runtime.retrieval import DocumentStore

from .._common import Impl, Measured, main

WORKLOAD = "R1"


def _corpus(root: Path, files: int, rng: random.Random) -> list[str]:
    vocabulary = [f"w{i:04d}" for i in range(5000)]
    for n in range(files):
        paragraphs = [" ".join(rng.choice(vocabulary) for _ in range(180)) + "." for _ in range(10)]
        (root / f"doc{n:04d}.txt").write_text("\n\n".join(paragraphs))
    return vocabulary


async def measure(impl: Impl, quick: bool) -> Measured:
    files, queries = (100, 20) if quick else (1000, 200)
    os.environ.pop("OPENAI_API_KEY", None)  # keywords only: no embeddings API here
    rng = random.Random(1)
    root = Path(tempfile.mkdtemp(prefix="bench-r1-"))
    vocabulary = _corpus(root, files, rng)
    store = DocumentStore(root)
    started = time.perf_counter()
    report = await store.aindex()
    seconds = time.perf_counter() - started
    query_ms: list[float] = []
    for _ in range(queries):
        query = " ".join(rng.choice(vocabulary) for _ in range(3))
        start = time.perf_counter()
        hits = await store.asearch(query, k=5, mode="keyword")
        query_ms.append((time.perf_counter() - start) * 1000)
        if not hits:
            raise RuntimeError(f"no hit for {query!r}")
    store.close()
    return Measured(
        metrics={
            "chunks": [float(report.chunks)],
            "index_chunks_per_s": [report.chunks / seconds],
            "query_ms": query_ms,
        },
        info={"files": files, "queries": queries},
    )


if __name__ == "__main__":
    main(WORKLOAD, measure)
