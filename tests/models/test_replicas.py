"""Replicas of one deployment: the option's syntax, the identity they share, the balancer."""

from __future__ import annotations

import pytest

from lvlmbench.models import ProviderError, RegistryError, load_chat_model, model_identity
from lvlmbench.models._api import ErrorKind
from lvlmbench.models._replicas import ReplicaSet, replica_failed

A, B, C = "http://a:8000/v1", "http://b:8000/v1", "http://c:8000/v1"


def test_one_url_keeps_the_identity_it_always_had() -> None:
    assert model_identity(f"openai/m?base_url={A}/") == f"openai/m?base_url={A}"


def test_appending_replicas_keeps_the_identity_of_the_first() -> None:
    one = model_identity(f"openai/m?base_url={A}")
    assert model_identity(f"openai/m?base_url={A},{B}") == one
    assert model_identity(f"openai/m?base_url={A},{B},{C}") == one
    # Without a name the first URL is the deployment: another first URL is another model.
    assert model_identity(f"openai/m?base_url={B},{A}") == f"openai/m?base_url={B}"


@pytest.mark.parametrize("urls", [[A], [A, B], [B, A], [C, B, A], [B, C]])
def test_a_named_deployment_is_one_model_for_any_order_and_count(urls: list[str]) -> None:
    spec = f"openai/m?base_url={','.join(urls)}&deployment=vllm-7b&max_tokens=64"
    assert model_identity(spec) == "openai/m?deployment=vllm-7b&max_tokens=64"


def test_the_cache_key_names_the_deployment_not_a_replica() -> None:
    named = [load_chat_model(f"openai/m?base_url={u}&deployment=d") for u in (A, f"{B},{A}")]
    assert named[0].cache_identity() == named[1].cache_identity()
    assert "deployment" in named[0].cache_identity()
    first = [load_chat_model(f"openai/m?base_url={u}") for u in (A, f"{A},{B},{C}")]
    assert (
        first[0].cache_identity()
        == first[1].cache_identity()
        == {
            "provider": "openai",
            "model": "m",
            "base_url": A,
        }
    )


def test_credentials_in_a_replica_url_never_reach_the_identity() -> None:
    spec = f"openai/m?base_url=http://u:secret@a:8000/v1,{B}"
    assert model_identity(spec) == f"openai/m?base_url={A}"


@pytest.mark.parametrize(
    ("value", "named"),
    [
        (f"{A},ftp://b/v1", "replica 2 ('ftp://b/v1')"),
        (f"{A},", "replica 2 ('')"),
        (f"{A},{A}/", f"{A} is listed twice"),
    ],
)
def test_a_bad_replica_is_named(value: str, named: str) -> None:
    with pytest.raises(RegistryError, match="base_url") as caught:
        model_identity(f"openai/m?base_url={value}")
    assert named in str(caught.value)


def test_a_bad_deployment_name_is_refused() -> None:
    with pytest.raises(RegistryError, match="deployment"):
        model_identity(f"openai/m?base_url={A}&deployment=a b")


def test_other_providers_still_take_one_url() -> None:
    with pytest.raises(RegistryError, match="base_url"):
        model_identity(f"anthropic/m?base_url={A},{B}")


def test_the_model_allows_its_concurrency_on_each_replica() -> None:
    from lvlmbench.models import ModelClient

    client = ModelClient(load_chat_model(f"openai/m?base_url={A},{B},{C}"), None, concurrency=4)
    assert client.concurrency == 12 and client.breaker.threshold == 16
    single = ModelClient(load_chat_model(f"openai/m?base_url={A}"), None, concurrency=4)
    assert single.concurrency == 4 and single.breaker.threshold == 8


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_pick_goes_to_the_fewest_in_flight() -> None:
    replicas = ReplicaSet([A, B, C])
    picked = []
    for _ in range(6):
        replica = replicas.pick()
        replica.in_flight += 1
        picked.append(replica.url)
    assert picked == [A, B, C, A, B, C]
    replicas.replicas[1].in_flight = 0  # B finished both
    assert replicas.pick().url == B


def test_a_failed_replica_is_out_for_a_doubling_cool_down() -> None:
    clock = _Clock()
    replicas = ReplicaSet([A, B], cooldown_s=30, max_cooldown_s=100, clock=clock)
    a = replicas.replicas[0]
    replicas.failed(a, "refused")
    assert replicas.pick().url == B and replicas.out() == [a]
    replicas.failed(a, "refused again by a call in flight")  # same outage: not doubled
    assert a.down_until == 130.0
    clock.now = 131.0
    assert replicas.pick().url == A  # back on trial
    replicas.failed(a, "still refused")
    assert a.down_until == 131.0 + 60
    clock.now = 200.0
    replicas.failed(a, "and again")
    assert a.cooldown == 100  # capped
    replicas.succeeded(a)
    assert a.cooldown == 0 and replicas.out() == []


def test_when_all_are_out_the_one_due_back_first_is_tried() -> None:
    clock = _Clock()
    replicas = ReplicaSet([A, B], clock=clock)
    replicas.failed(replicas.replicas[1], "x")
    clock.now += 1
    replicas.failed(replicas.replicas[0], "x")
    assert replicas.pick().url == B
    assert not replicas.has_other(frozenset())
    # A call that already failed on B tries another even when all are out.
    assert replicas.pick(frozenset({B})).url == A


@pytest.mark.parametrize(
    ("status", "kind", "failed"),
    [
        (None, ErrorKind.TRANSIENT, True),
        (502, ErrorKind.TRANSIENT, True),
        (429, ErrorKind.TRANSIENT, False),
        (400, ErrorKind.FATAL, False),
        (500, ErrorKind.FATAL, False),  # a 500 naming an unsupported feature: the request's
    ],
)
def test_only_server_side_failures_take_a_replica_out(
    status: int | None, kind: ErrorKind, failed: bool
) -> None:
    assert replica_failed(ProviderError("x", kind, status_code=status)) is failed
