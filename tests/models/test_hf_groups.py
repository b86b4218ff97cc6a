"""How a transformers replica cuts requests into batches, with fake models (no weights): groups
are not cut short by calls that arrive in waves, a short group goes once the model would wait,
preparation overlaps generation, ``batch_size=auto`` sizes from the device memory, and a model
that raises ``torch.OutOfMemoryError`` above some rows gets its batch halved, no row failed."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from lvlmbench.models._hf_backend import Group  # noqa: E402
from lvlmbench.models._hf_capacity import Capacity  # noqa: E402
from lvlmbench.models._hf_engine import Replica  # noqa: E402
from lvlmbench.models._hf_memory import (  # noqa: E402
    MEMORY_SHARE,
    PROBE_ROWS,
    rows_for_decoding,
    rows_for_generate,
)
from lvlmbench.models._hf_queue import QUIET_S, Job, Pending  # noqa: E402
from lvlmbench.models._hf_rows import Vocabulary  # noqa: E402

MB = 2**20


@dataclass
class FakeModel:
    """Answers each request with itself. Preparing a group sleeps ``prepare_s``, a ``generate``
    call ``generate_s`` whatever its rows (a GPU decoding a small batch is launch-bound); a call
    of more than ``fits`` rows raises ``torch.OutOfMemoryError``, and each call "allocates"
    ``row_bytes`` per row on ``memory``."""

    prepare_s: float = 0.0
    generate_s: float = 0.0
    fits: int | None = None
    row_bytes: int = MB
    memory: FakeMemory | None = None
    calls: list[int] = field(default_factory=list)
    spans: dict[str, list[tuple[float, float]]] = field(
        default_factory=lambda: {"prepare": [], "generate": []}
    )
    lock: threading.Lock = field(default_factory=threading.Lock)

    def _span(self, kind: str, seconds: float) -> None:
        started = time.perf_counter()
        time.sleep(seconds)
        with self.lock:
            self.spans[kind].append((started, time.perf_counter()))

    def load_replica(self, device: str) -> Any:
        return type("Loaded", (), {"model": None})()

    def batch_key(self, continuous: bool) -> Any:
        return None

    def prepare_group(self, loaded: Any, jobs: list[Job]) -> Group:
        self._span("prepare", self.prepare_s)
        return Group(jobs, None, [1] * len(jobs), process_s=self.prepare_s)

    def generate_group(self, loaded: Any, group: Group) -> list[Any]:
        rows = len(group.jobs)
        if self.fits is not None and rows > self.fits:
            raise torch.OutOfMemoryError(f"{rows} rows do not fit (at most {self.fits})")
        if self.memory is not None:
            self.memory.allocated_peak = rows * self.row_bytes
        self._span("generate", self.generate_s)
        with self.lock:
            self.calls.append(rows)
        return [job.request for job in group.jobs]

    def continuous_for(self, loaded: Any) -> bool:
        return False

    def vocabulary(self, loaded: Any) -> Vocabulary:
        return Vocabulary(frozenset(), None, str)

    def failure(self, exc: Exception) -> Exception:
        return exc


@dataclass
class FakeMemory:
    """A device with ``free_bytes`` free; a call's peak is what the fake model allocated."""

    free_bytes: int
    allocated_peak: int = 0

    def mark(self) -> int:
        self.allocated_peak = 0
        return 0

    def peak(self) -> int:
        return self.allocated_peak

    def free(self) -> int:
        return self.free_bytes


class Answers:
    """Collects delivered answers; ``wait`` until ``n`` came."""

    def __init__(self) -> None:
        self.got: list[Any] = []
        self._done = threading.Semaphore(0)

    def deliver(self, result: Any) -> None:
        self.got.append(result)
        self._done.release()

    def jobs(self, numbers: range) -> list[Job]:
        return [Job(n, self.deliver) for n in numbers]

    def wait(self, n: int) -> None:
        for _ in range(n):
            assert self._done.acquire(timeout=30), f"only {len(self.got)} of {n} answered"


@pytest.fixture
def run_replica() -> Iterator[Any]:
    started: list[tuple[Pending, Replica]] = []

    def start(model: FakeModel, rows: int, *, overlap: bool = True, auto: bool = False) -> Any:
        pending = Pending()
        replica = Replica(
            model,  # type: ignore[arg-type]
            pending,
            "cpu",
            Capacity(rows=rows, limit=rows, auto=auto),
            overlap=overlap,
            continuous=False,
            spec="fake/model",
            memory=model.memory,
        )
        replica.start()
        started.append((pending, replica))
        return pending, replica

    yield start
    for pending, replica in started:
        pending.close(RuntimeError("closed"))
        replica.stop(RuntimeError("closed"))


def test_a_wave_of_calls_arriving_in_pieces_makes_one_full_batch(run_replica: Any) -> None:
    """While batch 1 generates and batch 2 waits prepared, the next wave of 4 calls arrives as
    1 then 3: one call of 4 follows, not a call for the lone row and another for the rest
    (each costing a whole generate on a GPU). Before the fix: [4, 4, 1, 3]."""
    model = FakeModel(generate_s=0.5)
    answers = Answers()
    pending, _replica = run_replica(model, 4)
    pending.put(answers.jobs(range(8)))
    time.sleep(0.1)  # batch 1 generating, batch 2 prepared
    pending.put(answers.jobs(range(8, 9)))
    time.sleep(3 * QUIET_S)  # a pause longer than the quiet window: the lone row still waits
    pending.put(answers.jobs(range(9, 12)))
    answers.wait(12)
    assert model.calls == [4, 4, 4]
    assert sorted(answers.got) == list(range(12))


@pytest.mark.parametrize("overlap", [True, False])
def test_a_short_group_goes_once_the_model_would_wait(run_replica: Any, overlap: bool) -> None:
    """Three calls for a batch of 8, and no more coming: they are answered together, not
    held for rows that never arrive."""
    model = FakeModel()
    answers = Answers()
    pending, _replica = run_replica(model, 8, overlap=overlap)
    pending.put(answers.jobs(range(3)))
    answers.wait(3)
    assert model.calls == [3]


def test_take_hands_out_a_short_group_only_when_allowed_and_quiet() -> None:
    now = [100.0]
    pending = Pending(clock=lambda: now[0])
    answers = Answers()
    pending.put(answers.jobs(range(3)))
    allowed = [False]

    def take() -> list[Job] | None:
        return pending.take(4, block=False, short_ok=lambda: allowed[0])

    assert take() == []  # short, and the taker has work
    allowed[0] = True
    assert take() == []  # the last call came just now: more may follow
    now[0] += QUIET_S
    taken = take()
    assert taken is not None and [job.request for job in taken] == [0, 1, 2]
    pending.put(answers.jobs(range(3, 8)))
    allowed[0] = False
    full = take()
    assert full is not None and [job.request for job in full] == [3, 4, 5, 6]  # full: at once


@pytest.mark.parametrize("overlap", [True, False])
def test_the_next_group_is_prepared_while_one_generates(run_replica: Any, overlap: bool) -> None:
    """Preparation 0.1 s and generation 0.1 s per group, six groups: with overlap the
    preparations after the first are hidden under generations (wall about the sum of one
    kind, not of both); without, none is. Measured on the fake's own intervals. The replica's
    log says what the device waited for: one preparation with overlap, all six without."""
    model = FakeModel(prepare_s=0.1, generate_s=0.1)
    answers = Answers()
    pending, replica = run_replica(model, 2, overlap=overlap)
    pending.put(answers.jobs(range(12)))
    answers.wait(12)
    prepares, generates = model.spans["prepare"], model.spans["generate"]
    hidden = sum(max(0.0, min(p[1], g[1]) - max(p[0], g[0])) for p in prepares for g in generates)
    later = sum(end - start for start, end in prepares[1:])  # the first cannot be hidden
    log = replica.log
    if overlap:
        assert hidden >= 0.5 * later
        assert 0.05 <= log.idle_s <= log.process_s / 2
    else:
        assert hidden == 0.0
        assert log.idle_s == pytest.approx(log.process_s)
    assert log.process_s == pytest.approx(0.6) and log.generate_s >= 0.6
    assert sorted(answers.got) == list(range(12))


def test_auto_sizes_the_batch_from_the_probe_and_halves_on_out_of_memory(
    run_replica: Any,
) -> None:
    """The probe batch (8 rows) takes 1 MB a row on a device with 100 MB free: auto plans
    0.85 × 100 = 85 rows. The model fails above 40 rows: 85 halves to 42, then 21; every
    request is answered exactly once."""
    memory = FakeMemory(free_bytes=100 * MB)
    model = FakeModel(fits=40, memory=memory)
    answers = Answers()
    pending, replica = run_replica(model, 256, auto=True)
    pending.put(answers.jobs(range(200)))
    answers.wait(200)
    planned = int(MEMORY_SHARE * 100)
    assert model.calls[0] == PROBE_ROWS
    assert replica.capacity.rows == planned // 2 // 2 == 21
    assert replica.capacity.halvings == 2
    assert model.calls == [PROBE_ROWS] + [21] * 9 + [200 - PROBE_ROWS - 21 * 9]
    assert sorted(answers.got) == list(range(200))  # none failed, none answered twice


def test_a_row_that_fits_nowhere_fails_alone(run_replica: Any) -> None:
    model = FakeModel(fits=0)
    answers = Answers()
    pending, replica = run_replica(model, 4)
    pending.put(answers.jobs(range(3)))
    answers.wait(3)
    errors = [a for a in answers.got if isinstance(a, Exception)]
    assert len(errors) == 3 and all(getattr(e, "status_code", None) == 413 for e in errors)
    assert replica.capacity.rows == 1


def test_the_rows_auto_plans_from_a_probe() -> None:
    """Hand-worked. generate: 8 rows took 8 MB, 100 MB free: 0.85 × 100 / 1 = 85 rows.
    Continuous: 8 rows × 100 positions of cache took 8 MB (10.24 KB a position); a row at its
    full 164 positions takes 1.64 MB; the prefill passed 1 MB a row beyond its cache, and a
    refill of 16 rows must fit beside the batch: (0.85 × (100 + 8) − 16) / 1.64 = 46.2 rows."""
    assert rows_for_generate(8 * MB, 8, 100 * MB) == 85
    planned = rows_for_decoding(
        cache_bytes=8 * MB,
        cache_positions=8 * 100,
        full_positions=164,
        transient_bytes=8 * MB,
        rows=8,
        group_rows=16,
        free_bytes=100 * MB,
    )
    assert planned == 46
    assert rows_for_generate(8 * MB, 8, 0) == 1  # nothing free: one row, then halving decides
