"""Signatures that take or return an untyped dict (``dict[str, Any]`` anywhere in the
annotation, or a bare ``dict``), and which of them cross a package boundary.

A signature is public when its function (or a public class's method) has no leading
underscore, and it crosses a boundary when its name is imported by a module of another
top-level package of ``lvlmbench``. Run as a script, it prints the counts and the offenders:
``python tests/untyped_seams.py -v``.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(
    os.environ.get("LVLMBENCH_SRC", Path(__file__).resolve().parents[1] / "src")
).joinpath("lvlmbench")
"""The package scanned (``LVLMBENCH_SRC=other/src`` counts another checkout's)."""

OWNED_ELSEWHERE = ("cli", "api", "workflows")
"""The entry points and the use-case layer: their signatures are issue 26's other items."""

_UNTYPED = re.compile(r"(?<![\w.])(?:dict|Dict)\[str, Any\]|(?<![\w.])dict(?![\w\[])")


@dataclass(frozen=True)
class Signature:
    package: str
    """The top-level package (``store``, ``report``; a top-level module is its own)."""
    qualname: str
    """``module:function`` or ``module:Class.method``."""
    name: str
    public: bool


def _package(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def _module(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def _untyped(node: Function) -> bool:
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    notes = [a.annotation for a in every if a is not None and a.annotation is not None]
    if node.returns is not None:
        notes.append(node.returns)
    return any(_UNTYPED.search(ast.unparse(note)) for note in notes)


Function = ast.FunctionDef | ast.AsyncFunctionDef


def _functions(tree: ast.Module) -> Iterator[tuple[str, Function, bool]]:
    """(qualified name, node, public) of module functions and class methods."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, node, not node.name.startswith("_")
        elif isinstance(node, ast.ClassDef):
            for inner in node.body:
                if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
                    public = not node.name.startswith("_") and not inner.name.startswith("_")
                    yield f"{node.name}.{inner.name}", inner, public


def untyped_signatures() -> list[Signature]:
    """Every signature under src/lvlmbench with an untyped dict in its annotations."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for qualname, node, public in _functions(tree):
            if _untyped(node):
                name = qualname.partition(".")[0]
                found.append(Signature(_package(path), f"{_module(path)}:{qualname}", name, public))
    return found


def imported_elsewhere() -> dict[str, set[str]]:
    """{package: the names other packages import from it}."""
    imported: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        here = _package(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lvlmbench."):
                there = (node.module or "").split(".")[1]
                if there != here:
                    imported.setdefault(there, set()).update(a.name for a in node.names)
    return imported


def crossing(signatures: list[Signature]) -> list[Signature]:
    """The public signatures other packages use, outside the packages owned elsewhere."""
    imported = imported_elsewhere()
    return [
        s
        for s in signatures
        if s.public
        and s.package not in OWNED_ELSEWHERE
        and s.name in imported.get(s.package, set())
    ]


if __name__ == "__main__":
    every = untyped_signatures()
    public = [s for s in every if s.public]
    crossed = crossing(every)
    print(f"signatures with an untyped dict: {len(every)}, public {len(public)}, ", end="")
    print(f"public and crossing a package boundary outside cli/api/workflows: {len(crossed)}")
    if "-v" in sys.argv:
        for s in crossed:
            print(f"  {s.qualname}")
