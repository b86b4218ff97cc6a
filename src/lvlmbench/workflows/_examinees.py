"""Which ``--model`` names a use case runs, which it scores from stored responses, and which
items a ``--limit`` asks: the checks every examinee-running use case makes before it starts."""

from __future__ import annotations

from lvlmbench.models import CHAT_PROVIDERS, RegistryError, parse_spec, resolve_spec
from lvlmbench.runner import stratified_subset
from lvlmbench.store import Store, did_you_mean, iter_benchmark_responses, iter_items, list_stored
from lvlmbench.workflows._errors import InvalidOptions

__all__ = [
    "check_specs",
    "check_stored_names",
    "could_be_imported",
    "imported_models",
    "subset_for",
]


def could_be_imported(spec: str) -> bool:
    """Whether ``spec`` is no provider spec at all but may name an imported player (a
    prediction file's ``llava-7b``): a spec naming a known provider must resolve, so its typos
    fail before the store is opened."""
    provider = spec.partition("?")[0].partition("/")[0]
    return "?" not in spec and provider not in CHAT_PROVIDERS


def imported_models(store: Store, benchmark: str, specs: list[str]) -> list[str]:
    """The ``--model`` names that are no runnable spec but have responses stored on
    ``benchmark`` (imported prediction files, web submissions): scored, not run."""
    found = []
    for spec in specs:
        try:
            parse_spec(spec)
        except RegistryError:
            if next(iter_benchmark_responses(store, benchmark, model=spec), None) is not None:
                found.append(spec)
    return found


def check_stored_names(store: Store, benchmark: str, specs: list[str]) -> None:
    """InvalidOptions naming the closest stored models when a ``--model`` is neither a runnable
    spec nor a name with responses on ``benchmark`` (a misspelt imported player, or a bare
    ``random`` for ``baseline/random``)."""
    for spec in specs:
        if not could_be_imported(spec):
            continue
        try:
            parse_spec(spec)
        except RegistryError as exc:
            known = [m for row in list_stored(store) if row.name == benchmark for m in row.models]
            hint = did_you_mean(spec, known)
            if hint:
                raise InvalidOptions(
                    f"--model {spec!r} is no model spec and has no responses on {benchmark!r}"
                    f"{hint}; `lvlmbench ls` lists the models run on each benchmark"
                ) from None
            raise exc from None


def check_specs(specs: list[str]) -> None:
    """Reject a malformed spec, an unknown provider, or an unknown or malformed option before
    any work is stored (RegistryError, exit 2), so a typo in the last --model does not leave the
    others' runs half done."""
    for spec in specs:
        resolve_spec(spec)


def subset_for(store: Store, benchmark: str, limit: int | None, seed: int) -> set[str] | None:
    """The ``--limit`` subset's item ids (None: every item)."""
    if limit is None:
        return None
    if limit < 1:
        raise InvalidOptions(f"--limit {limit}: expected a whole number of at least 1")
    return stratified_subset(iter_items(store, benchmark), limit, seed)
