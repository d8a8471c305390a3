"""Parsing in a child process with a time limit and a memory limit.

The HTML, PDF and Word parsers are not this package's code, and a hostile file can make them
slow beyond any use: the standard library's ``HTMLParser`` takes quadratic time on unclosed
comments or tags (a 1 MB file runs for hours on Python 3.11), and ``pypdf`` and ``lxml``
have had endless loops and memory blow-ups. A thread cannot be stopped, a process can:
``ParserProcess`` sends each such file to one child (started on first use, isolated
mode, a near-empty environment, an address-space limit) and kills it when a file takes longer
than ``max_parse_seconds``; the next file gets a fresh child. Answers come back as JSON, never
pickle, so a child that a file subverted cannot run code in the indexing process.
"""

from __future__ import annotations

import dataclasses
import json
import os
import select
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

from ..errors import UserError
from .limits import DocumentLimits
from .parse import Parsed, Section, parse_document

__all__ = ["ParserProcess", "serve"]

MEMORY_LIMIT = 4 << 30
"""Address space of the child (bytes): a parser that needs more fails with MemoryError."""
_PACKAGE_PARENT = str(Path(__file__).resolve().parents[3])
_START = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from jupyter_agents.runtime.retrieval.worker import serve; serve()"
)


class ParserProcess:
    """A child process that parses documents, one at a time, each within ``seconds``."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._child: subprocess.Popen[bytes] | None = None

    def parse(
        self, suffix: str, data: bytes, limits: DocumentLimits, max_chars: int | None
    ) -> Parsed:
        """``parse_document`` in the child; a ``UserError`` when it fails, takes too
        long or dies."""
        child = self._started()
        header = json.dumps(
            {"suffix": suffix, "max_chars": max_chars, "limits": dataclasses.asdict(limits)}
        ).encode()
        try:
            assert child.stdin is not None and child.stdout is not None
            child.stdin.write(struct.pack("<II", len(header), len(data)) + header)
            child.stdin.write(data)
            child.stdin.flush()
            (size,) = struct.unpack("<Q", _read(child.stdout, 8, time.monotonic() + self.seconds))
            answer = json.loads(_read(child.stdout, size, time.monotonic() + self.seconds))
        except TimeoutError:
            self.close()
            raise UserError(
                f"took longer than {self.seconds:g} s to read: not read (max_parse_seconds)."
            ) from None
        except (OSError, EOFError, ValueError, struct.error) as e:
            self.close()
            raise UserError(f"its parser stopped ({type(e).__name__}): not read.") from None
        if "error" in answer:
            raise UserError(str(answer["error"]))
        sections = [Section(text, page, heading) for text, page, heading in answer["sections"]]
        return Parsed(sections, list(answer["notes"]))

    def _started(self) -> subprocess.Popen[bytes]:
        if self._child is None or self._child.poll() is not None:
            self._child = subprocess.Popen(
                [sys.executable, "-I", "-c", _START, _PACKAGE_PARENT],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={"PATH": os.environ.get("PATH", ""), "LC_ALL": "C.UTF-8"},
            )
        return self._child

    def close(self) -> None:
        """Stop the child (the next ``parse`` starts another)."""
        child, self._child = self._child, None
        if child is not None:
            child.kill()
            child.wait()
            for pipe in (child.stdin, child.stdout):
                if pipe is not None:
                    pipe.close()


def _read(stream: IO[bytes], size: int, deadline: float) -> bytes:
    """Exactly ``size`` bytes from the child by ``deadline``; TimeoutError or EOFError."""
    fd = stream.fileno()
    blocks: list[bytes] = []
    while size:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise TimeoutError
        block = os.read(fd, min(size, 1 << 20))
        if not block:
            raise EOFError
        blocks.append(block)
        size -= len(block)
    return b"".join(blocks)


def serve() -> None:
    """The child's loop: read a request from stdin, answer on stdout, until stdin closes."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    except (ImportError, ValueError, OSError):
        pass  # no limit where the system has none to set
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    while head := requests.read(8):
        header_size, data_size = struct.unpack("<II", head)
        request = json.loads(requests.read(header_size))
        data = requests.read(data_size)
        answer = json.dumps(_answer(request, data)).encode()
        answers.write(struct.pack("<Q", len(answer)) + answer)
        answers.flush()


def _answer(request: dict[str, Any], data: bytes) -> dict[str, Any]:
    try:
        limits = DocumentLimits(**request["limits"])
        parsed = parse_document(request["suffix"], data, limits, request["max_chars"])
    except UserError as e:
        return {"error": e.message}
    except Exception as e:  # a parser's own failure (MemoryError included) skips the file
        return {"error": f"{type(e).__name__}: {e}"}
    sections = [[s.text, s.page, s.heading] for s in parsed.sections]
    return {"sections": sections, "notes": parsed.notes}
