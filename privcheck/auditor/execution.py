"""The backend: where an audit's draws run (threads, worker processes or a Dask cluster).

Every stage's chunks go through the one scheduler (:mod:`privcheck.base.scheduler`); results do not depend on
the backend or the worker count (chunk ``i`` of a stream always uses child ``i`` of its SeedSequence). A new
backend implements :class:`privcheck.base.scheduler.Backend` and is passed as ``client=`` (or chosen in
:func:`privcheck.base.scheduler.get_backend`); nothing in the auditor's stages changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from privcheck.base.scheduler import get_backend


@dataclass(frozen=True)
class Execution:
    """How an audit runs: ``jobs`` workers (threads by default), a Dask ``client`` (``"local"``, an address, or
    a backend from ``get_backend`` to reuse), and a ``progress(draws)`` callback."""

    jobs: int | None = None
    client: Any = None
    progress: Callable[[int], None] | None = None

    @property
    def distributed(self) -> bool:
        """Whether the draws may run on a cluster (a client was given)."""
        return self.client is not None

    def backend(self, sampler: Any) -> Any:
        """The backend for ``sampler``: worker processes when it prefers them (per-sample code), else threads,
        or the client's."""
        return get_backend(jobs=self.jobs, client=self.client, processes=getattr(sampler, "prefers_processes", False))
