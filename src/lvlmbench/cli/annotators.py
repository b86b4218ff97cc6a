"""`lvlmbench annotators ...`: who may vote on a shared web server, votes and flags per
annotator, and the owner's exclusions (the votes stay stored; the human figures leave them out)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

import typer
from rich.table import Table

from lvlmbench.cli._common import (
    BadInput,
    StoreOption,
    console,
    err_console,
    friendly_errors,
    open_store,
    print_json,
)
from lvlmbench.judging import HUMAN, AnnotatorRow, annotator_of, annotator_report
from lvlmbench.judging.human_checks import HUMAN_CHECK
from lvlmbench.store import (
    Store,
    did_you_mean,
    invite_annotator,
    judges_under,
    list_annotators,
    require_benchmark,
    revoke_annotator,
    set_excluded,
)

__all__ = ["annotators_app"]

annotators_app = typer.Typer(
    help="Invite annotators to a shared web server, see their votes and flags, exclude votes.",
    no_args_is_help=True,
)
OWNER = "owner"
"""The name `serve` gives its owner unless told otherwise: not an invitee's."""

NameArg = Annotated[str, typer.Argument(help="The annotator's name.", show_default=False)]


@annotators_app.command("invite")
@friendly_errors
def invite(name: NameArg, store: StoreOption = None) -> None:
    """Make NAME an invite token and print it (once: only its hash is stored). NAME signs in
    with it at /login of `lvlmbench serve --token-file ...`; their votes are stored as
    human:NAME. Inviting NAME again replaces the token (the old one and its sign-ins end)."""
    if name == OWNER:
        raise BadInput(f"{OWNER!r} is the name the server gives its owner: pick another name")
    opened = open_store(store)
    try:
        try:
            token = invite_annotator(opened, name)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
    finally:
        opened.close()
    err_console.print(
        f"invite token for {name} (shown once; give it to them, they sign in at /login):",
        markup=False,
        highlight=False,
    )
    typer.echo(token)  # alone on stdout, so a script can take it; never through the masker


@annotators_app.command("revoke")
@friendly_errors
def revoke(name: NameArg, store: StoreOption = None) -> None:
    """End NAME's invite token and every sign-in made with it. Their votes stay counted:
    `annotators exclude NAME` leaves them out."""
    opened = open_store(store)
    try:
        if not revoke_annotator(opened, name):
            invited = [a.name for a in list_annotators(opened)]
            raise BadInput(f"no invited annotator {name!r}{did_you_mean(name, invited)}")
    finally:
        opened.close()
    console.print(f"{name}'s invite is revoked", markup=False, highlight=False)


def _known(store: Store) -> set[str]:
    """Annotators with human votes or checks, or an invite."""
    judges = {annotator_of(j) for p in (HUMAN, HUMAN_CHECK) for j in judges_under(store, p)}
    return judges | {a.name for a in list_annotators(store)}


def _set(name: str, excluded: bool, reason: str, store: str | None) -> None:
    opened = open_store(store)
    try:
        known = _known(opened)
        if name not in known:
            raise BadInput(
                f"no annotator {name!r} has votes or an invite in {opened.url}"
                f"{did_you_mean(name, known)}; `lvlmbench annotators list` shows them"
            )
        set_excluded(opened, name, excluded, reason)
    finally:
        opened.close()


@annotators_app.command("exclude")
@friendly_errors
def exclude(
    name: NameArg,
    reason: Annotated[str, typer.Option(help="Why (kept with the exclusion).")] = "",
    store: StoreOption = None,
) -> None:
    """Leave NAME's votes and checks out of every human figure (ratings, win rates, agreement,
    check rates, reports, the web app). The votes stay stored; `include` counts them again."""
    _set(name, True, reason, store)
    console.print(
        f"{name}'s votes are excluded from the human figures (still stored; "
        f"`lvlmbench annotators include {name}` counts them again)",
        markup=False,
        highlight=False,
    )


@annotators_app.command("include")
@friendly_errors
def include(name: NameArg, store: StoreOption = None) -> None:
    """Count NAME's votes again after `exclude`."""
    _set(name, False, "", store)
    console.print(f"{name}'s votes count again", markup=False, highlight=False)


def _row_json(row: AnnotatorRow) -> dict[str, object]:
    return asdict(row) | {"agreement": row.agreement}


def _sides(first: int, second: int) -> str:
    return f"{first} : {second}" if first or second else "-"


@annotators_app.command("list")
@friendly_errors
def list_cmd(
    benchmark: Annotated[
        str | None, typer.Argument(help="Only votes on this benchmark.", show_default=False)
    ] = None,
    flagged: Annotated[bool, typer.Option(help="Only annotators with a flag.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    store: StoreOption = None,
) -> None:
    """Votes per annotator: ties, sides taken (Answer 1 : 2 as shown in the web app, A : B as
    stored for imported votes), agreement with the other annotators' majority, median seconds
    per web vote, distinct clients, invite state, exclusion, and the flags (one side, all ties,
    disagrees, fast) that point at stuffed or careless votes."""
    opened = open_store(store, writable=False)
    try:
        if benchmark is not None:
            require_benchmark(opened, benchmark)
        rows = annotator_report(opened, benchmark).rows
    finally:
        opened.close()
    rows = [r for r in rows if r.flags] if flagged else rows
    if as_json:
        print_json([_row_json(r) for r in rows])
        return
    title = f"annotators on {benchmark}" if benchmark else "annotators"
    table = Table(title=title, title_justify="left")
    for column in ("annotator", "invite", "votes", "ties", "Answer 1 : 2", "A : B"):
        table.add_column(column, justify="right" if column in ("votes", "ties") else "left")
    for column in ("agreement", "median s", "clients", "excluded", "flags"):
        table.add_column(column)
    for r in rows:
        agreement = "-" if r.agreement is None else f"{r.agreed}/{r.compared} ({r.agreement:.0%})"
        table.add_row(
            r.annotator,
            r.invite or "-",
            str(r.votes),
            str(r.ties),
            _sides(r.shown.first, r.shown.second),
            _sides(r.stored.first, r.stored.second),
            agreement,
            "-" if r.median_s is None else f"{r.median_s:.1f}",
            str(r.clients),
            "yes" if r.excluded else "",
            "; ".join(r.flags),
        )
    console.print(table)
