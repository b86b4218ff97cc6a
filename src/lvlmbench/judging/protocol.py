"""A judge protocol as a type, and the registry the CLI, the report and the web app loop over.

A protocol is everything that differs between judges: its name in the store, the prompt files
it sends, how a reply is parsed into a typed result (and how that result sits in the one wide
:class:`~lvlmbench.types.Judgment` row, and is read back from it), the typed per-model summary
of its rows, how its numbers are formatted, its columns in a CLI table and its section in the
report. Everything that is the same (running jobs, resuming, leases, the progress bar, the
stored row) is shared and knows protocols only through this type.

Registering a protocol (:func:`register`) is all it takes for the CLI table, the report section,
the leaderboard columns and the number formats to pick it up (the report's generic section
unless one is registered for its ``report_key`` in :mod:`lvlmbench.report.sections`, as the
built-in protocols' are). The built-in protocols are registered by
:mod:`lvlmbench.judging.builtin_protocols`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from lvlmbench.judging._pool import JudgeRunSummary, ProgressHook
from lvlmbench.judging.scale import RatingScale
from lvlmbench.models import ModelClient
from lvlmbench.registry import Registry
from lvlmbench.store import Store
from lvlmbench.types import BenchmarkItem, Judgment

__all__ = [
    "HUMAN",
    "Column",
    "JudgeProtocol",
    "ModelSummary",
    "ProtocolKind",
    "RunProtocol",
    "Summarise",
    "column_digits",
    "is_human_judge",
    "metric_name",
    "pairwise_protocols",
    "protocol_for",
    "protocols",
    "register",
    "table_columns",
    "unregister",
]

HUMAN = "human"
"""Protocol of human pairwise votes (judge ``human:<annotator>``, verdict a/b/tie)."""

ProtocolKind = Literal["pairwise", "score", "rating", "metric", "human"]
"""What a row holds: a verdict on two answers (pairwise, human), two scores (score), one
rating (rating) or one metric value (metric)."""


class ModelSummary(Protocol):
    """One model's typed summary under a protocol; ``row()`` is its flat, JSON-ready form
    (what ``--json`` prints and what a CLI table or a generic report section shows)."""

    @property
    def model(self) -> str: ...

    def row(self) -> dict[str, Any]: ...


Summarise = Callable[[Iterable[Judgment], Mapping[str, BenchmarkItem]], Mapping[str, ModelSummary]]
"""A protocol's rows (any judge) on the given items -> {model: typed summary}."""


class RunProtocol(Protocol):
    """(store, benchmark, players, the judge's client, progress hook, ``only``) -> the run's
    summary: judges every player's stored answers on every item (on those whose ids are in
    ``only``, a ``--limit`` subset, when it is given), resumable. A protocol that judges
    ``judge --epochs K`` also takes the keyword ``epochs`` (each epoch's answers judged as
    their own units, :attr:`~lvlmbench.types.Judgment.epoch`); one without it judges
    epoch 0 only, and ``--epochs`` above 1 is refused for it."""

    def __call__(
        self,
        store: Store,
        benchmark: str,
        players: Sequence[str],
        client: ModelClient,
        hook: ProgressHook | None,
        /,
        *,
        only: Collection[str] | None = None,
    ) -> Awaitable[JudgeRunSummary]: ...


class _Parsed(Protocol):
    def fields(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Column:
    """One column of a protocol's table: ``key`` in a summary row, shown with ``digits``
    decimals (None: as text, e.g. counts). ``expand``: the value is a {name: number} mapping
    shown as one column per name (sorted), e.g. TouchStone's abilities."""

    heading: str
    key: str
    digits: int | None = 1
    expand: bool = False

    def value(self, row: Mapping[str, Any], name: str | None = None) -> Any:
        """This column's value in a summary row (``name``: one entry of an expanded one)."""
        return row[self.key].get(name) if name is not None else row[self.key]

    def cell(self, value: Any) -> str:
        """The value as the CLI and a generic report section show it ("-" when absent)."""
        if value is None:
            return "-"
        if self.digits is not None and isinstance(value, int | float):
            return f"{value:.{self.digits}f}"
        return str(value)


@dataclass(frozen=True)
class JudgeProtocol:
    """A judge protocol: what it asks, how it reads the reply, how its results are shown.

    ``name`` is the ``protocol`` column of its rows; with ``prefix`` it names a family
    (``metric:`` matches ``metric:rougeL``). ``parse`` turns a reply into a typed result whose
    ``fields()`` fill the Judgment row (a rating or score protocol parses on its ``scale``);
    ``result`` reads it back from a stored row (None when the row is not ok). ``digits``
    formats its numbers wherever a leaderboard column starts with one of ``columns``.
    ``report_key`` names its entry in the report data (None: no report section);
    ``cli_columns`` its table."""

    name: str
    kind: ProtocolKind
    title: str
    """How headings name it ("TouchStone score", "hallucination")."""
    prompts: tuple[str, ...] = ()
    """Prompt files under ``lvlmbench/prompts`` it renders."""
    parse: Callable[[str], _Parsed] | None = None
    result: Callable[[Judgment], Any] | None = None
    summarise: Summarise | None = None
    digits: int = 1
    columns: tuple[str, ...] = ()
    """Leaderboard column prefixes it owns (``"hallucination:"``)."""
    cli_columns: tuple[Column, ...] = ()
    report_key: str | None = None
    prefix: bool = False
    run: RunProtocol | None = None
    """How it judges, when it needs nothing but the players (``lvlmbench judge <name>`` is
    then made for it); the built-in pairwise and score judges have commands of their own."""
    help: str = ""
    """The ``lvlmbench judge <name>`` command's help."""
    scale: RatingScale | None = None
    """The numbers its judge gives (required for rating and score protocols): every reply is
    parsed on it, so a number outside it or given on another scale ("4/10" for a 1-5
    protocol) is unparseable; table headings show it after the title ("0 none - 10 all")."""

    def __post_init__(self) -> None:
        if self.kind not in ("rating", "score"):
            return
        if self.scale is None:
            raise ValueError(
                f"judge protocol {self.name!r} gives numbers: name its scale "
                "(scale=RatingScale(low, high))"
            )
        own = self.scale.parse if self.kind == "rating" else self.scale.parse_pair
        if self.parse is None:
            object.__setattr__(self, "parse", own)  # frozen: set once, here
        elif not _same_method(self.parse, own):
            raise ValueError(
                f"judge protocol {self.name!r} parses on its scale ({self.scale}): leave out "
                "parse, or pass the scale's own"
            )

    def matches(self, protocol: str) -> bool:
        """Whether a stored ``protocol`` value is this protocol (or one of its family)."""
        return protocol.startswith(self.name) if self.prefix else protocol == self.name

    def fmt(self, value: Any) -> str:
        """A number in this protocol's format ("-" when absent)."""
        return Column(self.name, self.name, self.digits).cell(value)


def _same_method(given: Callable[[str], Any], own: Callable[[str], Any]) -> bool:
    """Whether ``given`` is ``own``: the same method of an equal scale."""
    return getattr(given, "__func__", None) is getattr(own, "__func__", own) and getattr(
        given, "__self__", None
    ) == getattr(own, "__self__", None)


def table_columns(
    protocol: JudgeProtocol, rows: Iterable[Mapping[str, Any]]
) -> list[tuple[str, Column, str | None]]:
    """(heading, column, name within an expanded column or None) for a table of ``rows``:
    an expanded column becomes one column per name found in the rows, sorted."""
    out: list[tuple[str, Column, str | None]] = []
    rows = list(rows)
    for column in protocol.cli_columns:
        if column.expand:
            names = sorted({name for r in rows for name in r[column.key]})
            out += [(name, column, name) for name in names]
        else:
            out.append((column.heading, column, None))
    return out


_REGISTRY: Registry[JudgeProtocol] = Registry("judge protocol")


def register(protocol: JudgeProtocol) -> JudgeProtocol:
    """Add ``protocol`` (re-registering a name replaces it, keeping its place)."""
    return _REGISTRY.add(protocol.name, protocol, help=protocol.help, replace=True)


def unregister(name: str) -> None:
    """Remove a protocol (tests that register a toy one clean up with this)."""
    _REGISTRY.remove(name)


def protocols() -> tuple[JudgeProtocol, ...]:
    """Every registered protocol, in registration order (the order report sections follow)."""
    return tuple(_REGISTRY.values())


def protocol_for(protocol: str) -> JudgeProtocol:
    """The registered protocol of a stored ``protocol`` value; ValueError naming the known
    ones when none matches."""
    exact = _REGISTRY.get(protocol)
    if exact is not None:
        return exact
    for candidate in _REGISTRY.values():
        if candidate.matches(protocol):
            return candidate
    return _REGISTRY.get_or_raise(protocol)  # UnknownName, naming the known ones


def pairwise_protocols() -> list[str]:
    """The model-judged pairwise protocols, preferred first (reference-backed before
    reference-free: ``judge pairwise`` stores the backed one when items have references)."""
    return [p.name for p in _REGISTRY.values() if p.kind == "pairwise"]


def metric_name(protocol: str) -> str | None:
    """The metric of a ``metric:<name>`` protocol value, else None."""
    for candidate in _REGISTRY.values():
        if candidate.kind == "metric" and candidate.prefix and candidate.matches(protocol):
            return protocol.removeprefix(candidate.name)
    return None


def is_human_judge(judge: str) -> bool:
    """Whether a judge name is people's (``human``, ``human:<annotator>``), not a model's."""
    return judge.startswith("human")


def column_digits(column: str, default: int = 1) -> int:
    """Decimals for a leaderboard column, from the protocol owning its prefix."""
    for candidate in _REGISTRY.values():
        if candidate.columns and column.startswith(candidate.columns):
            return candidate.digits
    return default
