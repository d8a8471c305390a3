"""Runs inside a notebook's kernel, in a cell (the test puts this file's text in it): random
valid and junk changes sent to the page over the ``jupyter_agents.document`` comm, then edits
of the cell the page is typing into. Returns a summary the test checks; nothing here asserts.

Valid changes touch only the scratch cells (never the protected ones: the setup, the cell the
page types into, the cell running this), so each must apply; junk ones must not. A racing edit
names the source read just before (plus jitter while the page types) and appends a marker
line, so an edit applied over newer typing would lose keystrokes the test looks for.
"""

import asyncio
import random
import time
from collections.abc import Collection
from typing import Any

from jupyter_agents.notebook.host import current_host
from jupyter_agents.notebook.workspace.document_comm import NoFrontend

SOURCES = [
    "",
    "x = 1",
    "print('hi')",
    "# note\n\nmore",
    "ü∂ 中文 🙂",
    "<script>alert(1)</script><img src=x onerror=alert(2)>",
    "line\r\nwindows",
    "\ttabbed",
    "sep\u2028here",
    "a" * 3000,
]
JUNK_IDS = ["nope", "", None, 3, ["a"], {"id": "x"}, "x" * 5000]


def _valid(rng: random.Random, scratch: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """A change that must apply: (op, args)."""
    ids = [c["id"] for c in scratch]
    kind = rng.choice(["insert", "insert", "edit", "delete", "move"])
    if kind == "delete" and len(ids) <= 3:
        kind = "insert"
    if kind == "insert":
        args: dict[str, Any] = {
            "cell_type": rng.choice(["code", "markdown", "raw"]),
            "source": rng.choice(SOURCES),
        }
        where = rng.choice(["after", "before", "end"])
        if where != "end":
            anchor = rng.choice(scratch)
            args[where], args["expected"] = anchor["id"], anchor["source"]
        return kind, args
    cell = rng.choice(scratch)
    if kind == "edit":
        return kind, {"id": cell["id"], "expected": cell["source"], "source": rng.choice(SOURCES)}
    if kind == "delete":
        return kind, {"id": cell["id"], "expected": cell["source"]}
    after = rng.choice([c for c in scratch if c["id"] != cell["id"]])
    return kind, {
        "id": cell["id"],
        "expected": cell["source"],
        "after": after["id"],
        "after_expected": after["source"],
    }


def _junk(rng: random.Random, scratch: list[dict[str, Any]]) -> tuple[str, Any]:
    """A change that must not apply: (op, args); the arguments may be of any type."""
    cell = rng.choice(scratch)
    choice = rng.randrange(9)
    if choice == 0:
        return rng.choice(["explode", "", "cellz", "__proto__"]), {"id": cell["id"]}
    if choice == 1:
        return rng.choice(["edit", "delete", "move", "insert"]), rng.choice([[1, 2], "args", 7])
    if choice == 2:
        return rng.choice(["edit", "delete", "move"]), {"id": rng.choice(JUNK_IDS), "expected": ""}
    if choice == 3:
        return "insert", {
            "cell_type": rng.choice(["javascript", None, 1, "", "Code"]),
            "source": "x",
        }
    if choice == 4:
        return "insert", {"cell_type": "code", "source": rng.choice([None, 5, ["a"], {"s": 1}])}
    if choice == 5:
        return "edit", {
            "id": cell["id"],
            "expected": cell["source"],
            "source": rng.choice([None, 5, []]),
        }
    if choice == 6:  # stale: not the source the cell (or the one it goes next to) holds
        older = cell["source"] + " (older)"
        op = rng.choice(["edit", "delete", "move", "insert"])
        if op == "insert":
            return op, {"cell_type": "code", "source": "x", "after": cell["id"], "expected": older}
        return op, {"id": cell["id"], "expected": older, "source": "overwrite", "after": None}
    if choice == 7:
        return "insert", {"cell_type": "code", "source": "x", "after": rng.choice(JUNK_IDS[:2])}
    return "move", {"id": cell["id"], "after": cell["id"]}  # after itself


async def fuzz(
    seed: int, calls: int, racing: int, protected: Collection[str], typed: str
) -> dict[str, Any]:
    host = current_host()
    if host is None or host.document is None:
        raise RuntimeError("no document channel: load the extension (%load_ext) first")
    doc = host.document
    rng = random.Random(seed)
    tally: dict[str, int] = {}
    # (what, op, args, reply) for every change that did not do what it must
    wrong: list[list[Any]] = []

    async def send(op: str, args: Any) -> dict[str, Any]:
        try:
            call: Any = {"op": op, "args": args}  # made at random: any op, any args
            return dict(await doc.request(call))
        except NoFrontend as e:
            return {"error": str(e)}

    started = time.perf_counter()
    for i in range(calls):
        scratch = [c for c in await doc.cells() if c["id"] not in protected]
        valid = rng.random() < 0.5
        op, args = _valid(rng, scratch) if valid else _junk(rng, scratch)
        reply = await send(op, args)
        outcome = next(
            (k for k in ("done", "stale", "missing", "refused", "error") if k in reply), "?"
        )
        tally[f"{'valid' if valid else 'junk'} {outcome}"] = (
            tally.get(f"{'valid' if valid else 'junk'} {outcome}", 0) + 1
        )
        if (outcome == "done") != valid:
            wrong.append([i, op, repr(args)[:200], repr(reply)[:200]])
    changes_s = time.perf_counter() - started
    applied: list[str] = []
    stale = 0
    for j in range(racing):
        cell = next(c for c in await doc.cells() if c["id"] == typed)
        await asyncio.sleep(rng.uniform(0, 0.05))  # jitter: the page types meanwhile
        marker = f"#a{j}."
        reply = await send(
            "edit",
            {"id": typed, "expected": cell["source"], "source": cell["source"] + "\n" + marker},
        )
        if reply.get("done"):
            applied.append(marker)
        elif reply.get("stale"):
            stale += 1
        else:
            wrong.append(["race", j, repr(reply)[:200]])
    seconds = {
        "changes": round(changes_s, 1),
        "racing": round(time.perf_counter() - started - changes_s, 1),
    }
    return {"tally": tally, "wrong": wrong, "applied": applied, "stale": stale, "seconds": seconds}
