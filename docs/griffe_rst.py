"""A griffe extension (``mkdocs.yml``: the mkdocstrings handler's ``extensions``): the library's docstrings are
written in reST's small dialect (``code``, :class:`roles`, ``::`` literal blocks); the API reference shows them as
Markdown: code spans, and fenced blocks for the literal ones and the doctests."""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


def markdown(text: str) -> str:
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):  # a doctest: a Python console block
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i].strip())
                i += 1
            out += ["```pycon", *block, "```"]
            continue
        if line.rstrip().endswith("::") and not line.lstrip().startswith((">>>", "#")):
            stripped = line.rstrip()[:-2].rstrip()
            out.append(stripped + ":" if stripped else "")
            i += 1
            while i < len(lines) and not lines[i].strip():
                i += 1
            block: list[str] = []
            base = len(lines[i]) - len(lines[i].lstrip()) if i < len(lines) else 0
            while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) >= max(base, 1)):
                block.append(lines[i][base:])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            out += ["", "```text", *block, "```", ""]
            continue
        out.append(ROLE.sub(r"`\1`", line).replace("``", "`"))
        i += 1
    return "\n".join(out)


class RstToMarkdown(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        seen: set[int] = set()

        def walk(obj: Any) -> None:
            if id(obj) in seen or obj.is_alias:
                return
            seen.add(id(obj))
            if obj.docstring is not None:
                obj.docstring.value = markdown(obj.docstring.value)
            for member in obj.members.values():
                walk(member)

        walk(pkg)
