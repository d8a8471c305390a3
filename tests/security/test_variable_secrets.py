"""The notebook's variable tools (``list_variables``, ``inspect_variable``) never ask, so nothing
they say may hold a secret: an attacker-run test found each leak below (a ``.env`` read with
``dotenv_values``, mappings that are not plain dicts, dataclasses, attrs classes, pydantic models,
a DataFrame's ``api_key`` column, ``PGPASSWORD``, a database URL's password, key-shaped values),
and a 290 MB string that cost 7 s and 550 MB because it was formatted whole before being cut.

Every case runs through the real tool functions (``NotebookTools``); one runs in a real kernel.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import tracemalloc
import types
from collections import ChainMap, OrderedDict, UserDict, defaultdict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from pydantic import BaseModel, ConfigDict

from jupyter_agents.notebook.workspace.notebook_tools import NotebookTools
from jupyter_agents.runtime.tracing.redact import is_secret_name, redact_secrets, redact_text

from ..kernel.conftest import kernel_value
from ..kernel.frontend import Frontend

# -- what the model is told ---------------------------------------------------------------------


def told(namespace: dict[str, Any], *names: str) -> str:
    """Everything the model reads from the two tools: the list, then each variable inspected."""
    return asyncio.run(_told(namespace, *names))


async def _told(namespace: dict[str, Any], *names: str) -> str:
    tools = {t.name: t for t in NotebookTools(namespace=lambda: namespace)}

    async def call(tool: str, args: dict[str, Any]) -> str:
        answer = await tools[tool].on_invoke_tool(None, json.dumps(args))  # type: ignore[arg-type]
        return str(answer)

    said = [await call("list_variables", {})]
    for name in names or tuple(namespace):
        said.append(await call("inspect_variable", {"name": name}))
    return "\n".join(said)


def assert_hidden(text: str, secrets: list[str], shown: list[str]) -> None:
    """No secret, nor its middle, is in ``text``; what is no secret still is."""
    for secret in secrets:
        middle = secret[len(secret) // 3 : len(secret) // 3 + 8]  # a cut key shows a part
        assert secret not in text and middle not in text, f"{secret!r} leaked:\n{text}"
    for visible in shown:
        assert visible in text, f"{visible!r} should be shown:\n{text}"


# -- secrets by the shape of the key, anywhere in a text ----------------------------------------

# Built from parts so that no scanner takes this file for a leak.
KEYS = {
    "github classic": "ghp_" + "R8xT2mQ9vL4nZ7wK1pY6sB3dF5hJ0cA2eG8i",
    "github fine-grained": "github_pat_" + "11ABCDE2F0" + "aBcDeFgHiJkL_" + "m" * 30 + "Zy09" * 7,
    "stripe live": "sk_live_" + "51HqT9wK2mR8xL4nZ7pY6sB3dF5hJ0cA2eG8iQ1vW3",
    "aws access key": "AKIA" + "IOSFODNN7EXAMPLE",
    "slack bot": "xoxb-" + "123456789012-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx",
    "hugging face": "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
    "google api": "AIza" + "SyD4r8Xk2Lm9Qp7Wn5Vb3Tc1Hz6Jy0Fg-Ue",
    "pem private key": (
        "-----BEGIN RSA PRIVATE KEY-----\n"
        + "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
        + "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n"
        + "-----END RSA PRIVATE KEY-----"
    ),
}

PLACES: dict[str, Callable[[str], Any]] = {
    "a text": lambda key: f"deploy with {key} today",
    "a list": lambda key: ["first", f"token {key}"],
    "a dict value": lambda key: {"owner": "ada", "note": key},
    "a DataFrame cell": lambda key: pd.DataFrame({"owner": ["ada"], "note": [key]}),
    "a long text's head": lambda key: f"see {key} " + "filler " * 100_000,
}


def key_secrets(key: str) -> list[str]:
    """The parts of ``key`` that must not show: the key, and its body (a PEM key's lines)."""
    return [key] + [line for line in key.splitlines() if "-----" not in line]


@pytest.mark.parametrize("place", list(PLACES))
@pytest.mark.parametrize("shape", list(KEYS))
def test_a_key_shaped_value_is_redacted_wherever_it_is(shape: str, place: str) -> None:
    ns = {"value": PLACES[place](KEYS[shape])}
    text = told(ns)
    assert_hidden(text, key_secrets(KEYS[shape]), shown=["[redacted]"])


@pytest.mark.parametrize("shape", list(KEYS))
def test_traces_and_recordings_redact_the_same_key_shapes(shape: str) -> None:
    key = KEYS[shape]
    assert_hidden(redact_text(f"use {key} now"), key_secrets(key), shown=["use ", " now"])
    recorded = json.dumps(redact_secrets({"output": [f"said {key}"]}))
    assert_hidden(recorded, key_secrets(key), shown=["said "])


@pytest.mark.parametrize(
    "text",
    [
        "a basic understanding of statistics",
        "task-abcdefghijklmnopqrstuvwxyz0123 and disk-partition-identifier-0001",
        "see http://host:8080/path and https://ada@example.com/x",
        "hf_hub_download, github_pat, AKIA alone, xoxo, sk_live",
        'json {"max_tokens": 3, "keyword": "rain"}',
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0D\n-----END PUBLIC KEY-----",
    ],
)
def test_ordinary_text_is_left_as_it_is(text: str) -> None:
    assert redact_text(text) == text and redact_secrets([text]) == [text]
    assert told({"note": text}, "note").endswith(f"note: str, {len(text):,} characters:\n{text}")


@pytest.mark.parametrize("where", ["a text", "a list item"])
def test_a_key_cut_by_a_size_limit_shows_none_of_itself(where: str) -> None:
    key = KEYS["github classic"]
    pieces = [key[i : i + 6] for i in range(4, len(key) - 5)]  # any six characters of its body
    # cuts at 60 (a list's line), 400 (a text in a list), 6,000 (a whole text), each after a
    # window 256 characters longer
    lengths = [*range(3, 80), *range(270, 420), *range(600, 660), *range(5900, 6060)]

    async def all_told() -> list[str]:
        values = [f"{'x' * n},{key} and more" for n in lengths]
        return [await _told({"value": v if where == "a text" else [v]}) for v in values]

    for text in asyncio.run(all_told()):
        assert_hidden(text, [key, *pieces], shown=["xxx"])


# -- secrets by where they are: names of entries, fields, columns, variables -------------------


@dataclass
class Database:
    host: str
    password: str


@dataclass
class Case:
    """One leak: the namespace, what must not show, what must still show."""

    namespace: Callable[[Path], dict[str, Any]]
    secrets: list[str]
    shown: list[str]


def _dotenv(tmp_path: Path) -> dict[str, Any]:
    dotenv = pytest.importorskip("dotenv")
    path = tmp_path / ".env"
    path.write_text(
        "PGPASSWORD=hunter2-pg\nDATABASE_URL=postgresql://app:hunter2-url@db.internal/app\n"
        "STRIPE_SECRET_KEY=hunter2-stripe\nDEBUG=1\n"
    )
    return {"config": dotenv.dotenv_values(path)}  # an OrderedDict


def _attrs_model(tmp_path: Path) -> dict[str, Any]:
    pytest.importorskip("attr")
    import attr

    @attr.s(auto_attribs=True)
    class Service:
        url: str
        api_key: str

    return {"service": Service("https://api.internal", "hunter2-attrs")}


def _pydantic_model(tmp_path: Path) -> dict[str, Any]:
    class Settings(BaseModel):
        model_config = ConfigDict(extra="allow")
        region: str
        client_secret: str

    return {
        "settings": Settings.model_validate(  # token: an extra field, which the model allows
            {"region": "eu-west-1", "client_secret": "hunter2-pyd", "token": "hunter2-x"}
        )
    }


class Vault(Mapping[str, str]):
    """A Mapping subclass whose repr shows its entries."""

    def __init__(self, **entries: str) -> None:
        self._entries = entries

    def __getitem__(self, key: str) -> str:
        return self._entries[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Vault({self._entries!r})"


class Connection:
    """An object whose own repr shows its password."""

    def __repr__(self) -> str:
        return "Connection(host='db.internal', password='hunter2-repr', port=5432)"


def _connect(host: str = "db.internal", password: str = "hunter2-default") -> None:
    """Connect to the database."""


_connect.__module__ = "__main__"  # as a function defined in a cell is
Point = namedtuple("Point", ["user", "secret"])


CASES = {
    "dotenv_values of a .env file (an OrderedDict)": Case(
        _dotenv,
        ["hunter2-pg", "hunter2-url", "hunter2-stripe"],
        ["DEBUG", "db.internal", "PGPASSWORD"],
    ),
    "a defaultdict": Case(
        lambda _: {"d": defaultdict(list, {"password": ["hunter2-dd"], "ok": [1]})},
        ["hunter2-dd"],
        ["ok"],
    ),
    "a ChainMap": Case(
        lambda _: {"c": ChainMap({"auth_token": "hunter2-chain"}, {"region": "eu"})},
        ["hunter2-chain"],
        ["region"],
    ),
    "a dict subclass": Case(
        lambda _: {"c": type("Settings", (dict,), {})(api_key="hunter2-sub", region="eu")},
        ["hunter2-sub"],
        ["region"],
    ),
    "a UserDict": Case(
        lambda _: {"c": UserDict(secret="hunter2-user", region="eu")},
        ["hunter2-user"],
        ["region"],
    ),
    "a Mapping subclass": Case(
        lambda _: {"c": Vault(access_token="hunter2-vault", region="eu")},
        ["hunter2-vault"],
        ["region"],
    ),
    "a read-only mapping proxy": Case(
        lambda _: {"c": types.MappingProxyType({"password": "hunter2-proxy", "region": "eu"})},
        ["hunter2-proxy"],
        ["region"],
    ),
    "a mapping nested in a list": Case(
        lambda _: {"rows": [OrderedDict(user="ada", password="hunter2-nested")]},
        ["hunter2-nested"],
        ["ada"],
    ),
    "a mapping that holds itself": Case(
        lambda _: {"loop": _self_holding()},
        ["hunter2-loop"],
        ["region"],
    ),
    "a dataclass": Case(
        lambda _: {"db": Database("db.internal", "hunter2-dc")},
        ["hunter2-dc"],
        ["db.internal"],
    ),
    "a dataclass in a list": Case(
        lambda _: {"dbs": [Database("db.internal", "hunter2-dcl")]},
        ["hunter2-dcl"],
        ["db.internal"],
    ),
    "an attrs class": Case(_attrs_model, ["hunter2-attrs"], ["api.internal"]),
    "a pydantic model (and its extra fields)": Case(
        _pydantic_model, ["hunter2-pyd", "hunter2-x"], ["eu-west-1"]
    ),
    "a named tuple": Case(
        lambda _: {"p": Point("ada", "hunter2-nt")},
        ["hunter2-nt"],
        ["ada"],
    ),
    "a namespace": Case(
        lambda _: {"ns": types.SimpleNamespace(user="ada", passwd="hunter2-sn")},
        ["hunter2-sn"],
        ["ada"],
    ),
    "a pandas DataFrame's api_key column": Case(
        lambda _: {"users": pd.DataFrame({"user": ["ada", "bob"], "api_key": ["hunter2-a", "b"]})},
        ["hunter2-a"],
        ["ada", "bob", "api_key"],
    ),
    "a pandas column past the first six": Case(
        lambda _: {
            "wide": pd.DataFrame({**{f"c{i}": [i] for i in range(20)}, "token": ["hunter2-w"]})
        },
        ["hunter2-w"],
        ["c0", "token"],
    ),
    "a pandas Series named password": Case(
        lambda _: {"s": pd.Series(["hunter2-ser", "x2"], name="password")},
        ["hunter2-ser"],
        ["password"],
    ),
    "a pandas index named token": Case(
        lambda _: {
            "by_token": pd.DataFrame({"n": [1]}, index=pd.Index(["hunter2-idx"], name="token"))
        },
        ["hunter2-idx"],
        ["token"],
    ),
    "a pandas cell that holds a dict": Case(
        lambda _: {"events": pd.DataFrame({"payload": [{"secret": "hunter2-cell"}]})},
        ["hunter2-cell"],
        ["payload"],
    ),
    "a polars DataFrame's api_key column": Case(
        lambda _: {"users": pl.DataFrame({"user": ["ada"], "api_key": ["hunter2-pl"]})},
        ["hunter2-pl"],
        ["ada"],
    ),
    "a polars Series named secret": Case(
        lambda _: {"s": pl.Series("secret", ["hunter2-pls"])},
        ["hunter2-pls"],
        ["secret"],
    ),
    "a pyarrow table's password column": Case(
        lambda _: {"t": pa.table({"user": ["ada"], "password": ["hunter2-pa"]})},
        ["hunter2-pa"],
        ["ada"],
    ),
    "a numpy record's password field": Case(
        lambda _: {
            "a": np.array([("ada", "hunter2-np")], dtype=[("user", "U8"), ("password", "U16")])
        },
        ["hunter2-np"],
        ["ada"],
    ),
    "a variable named PGPASSWORD": Case(
        lambda _: {"PGPASSWORD": "hunter2-env", "city": "Paris"},
        ["hunter2-env"],
        ["PGPASSWORD", "Paris"],
    ),
    "a list named api_keys": Case(
        lambda _: {"api_keys": ["hunter2-k1", "hunter2-k2"]},
        ["hunter2-k1", "hunter2-k2"],
        ["api_keys"],
    ),
    "a tuple named db_credentials": Case(
        lambda _: {"db_credentials": ("app", "hunter2-tuple")},
        ["hunter2-tuple"],
        ["db_credentials"],
    ),
    "a DATABASE_URL with its password": Case(
        lambda _: {"DATABASE_URL": "postgresql://app:hunter2-db@db.internal:5432/app"},
        ["hunter2-db"],
        ["postgresql://app:[redacted]@db.internal:5432/app"],
    ),
    "a URL with a password inside a dict": Case(
        lambda _: {"urls": {"cache": "redis://:hunter2-redis@cache.internal:6379/0"}},
        ["hunter2-redis"],
        ["cache.internal"],
    ),
    "the environment (os.environ's class)": Case(
        lambda _: {"environ": _environ()},
        ["hunter2-environ"],
        ["PATH"],
    ),
    "a .env file read as text": Case(
        lambda _: {
            "env_text": "DEBUG=1\nPGPASSWORD=hunter2-text\nexport API_TOKEN='hunter2-tok'\n"
        },
        ["hunter2-text", "hunter2-tok"],
        ["DEBUG=1"],
    ),
    "an object whose repr shows a password": Case(
        lambda _: {"conn": Connection()},
        ["hunter2-repr"],
        ["db.internal"],
    ),
    "a function's default password": Case(
        lambda _: {"connect": _connect},
        ["hunter2-default"],
        ["db.internal"],
    ),
}


def _environ() -> Mapping[str, str]:
    """An ``os._Environ`` like ``os.environ``, with these variables only (none is set)."""
    env = os.environ
    data = {"PGPASSWORD": "hunter2-environ", "PATH": "/usr/bin"}
    encoded = {env.encodekey(k): env.encodevalue(v) for k, v in data.items()}
    return os._Environ(encoded, env.encodekey, env.decodekey, env.encodevalue, env.decodevalue)


def _self_holding() -> dict[str, Any]:
    loop: dict[str, Any] = OrderedDict(region="eu", password="hunter2-loop")
    loop["self"] = loop
    return loop


@pytest.mark.parametrize("case", list(CASES))
def test_a_secret_is_redacted_by_where_it_is(case: str, tmp_path: Path) -> None:
    leak = CASES[case]
    text = told(leak.namespace(tmp_path))
    assert_hidden(text, leak.secrets, leak.shown)


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("PGPASSWORD", True),
        ("MYSQL_PWD", True),
        ("dbpassword", True),
        ("csrftoken", True),
        ("api_keys", True),
        ("client_secrets", True),
        ("passphrase", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("DATABASE_URL", False),
        ("tokens", False),
        ("max_tokens", False),
        ("keyword", False),
        ("tokenizer", False),
        ("secretary", False),
        ("monkey", False),
    ],
)
def test_the_name_rule_knows_glued_and_plural_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_a_number_or_a_function_named_like_a_secret_is_still_shown() -> None:
    def get_token(scope: str) -> str:
        return scope

    get_token.__module__ = "__main__"
    text = told({"token_count": 42, "get_token": get_token})
    assert "42" in text and "get_token(scope: 'str') -> 'str'" in text


# -- huge values: cut before they are formatted -------------------------------------------------


def peak_bytes(describe: Callable[[], str]) -> tuple[str, int]:
    """What ``describe`` returns and the most memory it held at once."""
    tracemalloc.start()
    try:
        text = describe()
        return text, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


MB = 2**20

HUGE: dict[str, Callable[[], Any]] = {
    "a 64 MB string": lambda: "x" * (64 * MB),
    "a 64 MB bytes": lambda: b"x" * (64 * MB),
    "a list of 10 million items": lambda: [0] * 10_000_000,
    "a set of a million items": lambda: set(range(1_000_000)),
    "a dict of a million items": lambda: dict.fromkeys(range(1_000_000), 0),
    "a 1,000,000 x 40 DataFrame": lambda: pd.DataFrame(np.zeros((1_000_000, 40), dtype=np.int8)),
}


@pytest.mark.parametrize("kind", list(HUGE))
def test_a_huge_value_is_described_in_little_memory(kind: str) -> None:
    ns = {"big": HUGE[kind]()}
    text, peak = peak_bytes(lambda: told(ns))
    assert len(text) < 8_000 and "big:" in text
    assert peak < 8 * MB, f"{peak / MB:.0f} MB to describe {kind}"


def test_a_deep_or_self_holding_structure_is_described_in_bounds() -> None:
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    loop: list[Any] = ["a"]
    loop.append(loop)
    deep_map: dict[str, Any] = OrderedDict()
    for _ in range(100_000):
        deep_map = OrderedDict(inner=deep_map)
    text = told({"deep": deep, "loop": loop, "deep_map": deep_map})
    assert "could not be described" not in text and len(text) < 8_000
    assert "deep_map: collections.OrderedDict" in text or "deep_map: OrderedDict" in text


def test_an_inspected_text_is_capped_with_its_length() -> None:
    text = told({"s": "y" * 10_000_000}, "s")
    assert "10,000,000 characters" in text and "characters cut" in text
    assert len(text) < 6_500


# -- through a real kernel ----------------------------------------------------------------------

KERNEL_SETUP = f"""%load_ext jupyter_agents
from collections import OrderedDict
import pandas as pd
from jupyter_agents.testing import ScriptedModel, text, tool_call
PGPASSWORD = "hunter2-kernel-pg"
config = OrderedDict(DEBUG="1", STRIPE_SECRET_KEY="hunter2-kernel-od")
users = pd.DataFrame({{"user": ["ada"], "api_key": ["hunter2-kernel-df"]}})
note = "use " + {KEYS["github classic"]!r}
DATABASE_URL = "postgresql://app:hunter2-kernel-url@db.internal/app"
demo = ScriptedModel([
    [tool_call("list_variables", {{}}, "v1")],
    [tool_call("inspect_variable", {{"name": "config"}}, "v2")],
    [tool_call("inspect_variable", {{"name": "users"}}, "v3")],
    [tool_call("inspect_variable", {{"name": "note"}}, "v4")],
    [tool_call("inspect_variable", {{"name": "DATABASE_URL"}}, "v5")],
    [tool_call("inspect_variable", {{"name": "PGPASSWORD"}}, "v6")],
    [text("Read them.")],
])
%agent model demo
%agent tools add notebook"""


@pytest.mark.kernel
@pytest.mark.timeout(120)
def test_in_a_real_kernel_the_model_and_the_card_see_no_secret() -> None:
    fe = Frontend()
    try:
        fe.run(KERNEL_SETUP, timeout=60)
        before = len(fe.run_widgets())
        cell = fe.execute("%%agent\nWhat is in my variables?")
        fe.hello(fe.widget(before))
        assert fe.reply(cell, timeout=60)["content"]["status"] == "ok"
        outputs = kernel_value(fe, "[str(r.input[-1]['output']) for r in demo.requests[1:]]")
        seen = "\n".join(outputs) + json.dumps(fe.comm_data, default=str)
    finally:
        fe.close()
    assert len(outputs) == 6 and "users: pandas.DataFrame, 1 rows x 2 columns" in outputs[0]
    assert_hidden(
        seen,
        ["hunter2-kernel", KEYS["github classic"]],
        ["PGPASSWORD", "DEBUG", "ada", "postgresql://app:[redacted]@db.internal/app"],
    )


def test_dataclass_fields_hidden_from_repr_stay_hidden() -> None:
    @dataclasses.dataclass
    class Client:
        name: str
        blob: str = dataclasses.field(repr=False, default="hunter2-hidden-field")

    assert_hidden(told({"client": Client("ada")}), ["hunter2-hidden-field"], ["ada"])
