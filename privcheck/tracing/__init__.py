"""Gray-box checks of DP code: coupled runs on neighbouring inputs (``privcheck.trace``).

Black-box audits sample a mechanism many times; the leaks that reach users mostly sit in the code around
the noise — a sum clipped after it is computed, a noise scale read from the data, a NaN that ``np.clip``
lets through, a sensitivity declared for the wrong neighbouring relation. :func:`trace` runs the user's
function on both inputs of a neighbouring pair with the *same* random stream and compares what the noise
was added to (Re:cord-play, Cebere, Erb, Desfontaines, Bellet, Fitzsimons, PETS 2026), in seconds and
without statistics.

Modules (one job each):

- :mod:`.recording` — recording Generator / RandomState / ``random.Random`` subclasses (every random call
  logged with method, parameters, shape and call site);
- :mod:`.globals` — the global ``numpy.random`` and ``random`` generators coupled and recorded for one call,
  always restored (one process-wide lock);
- :mod:`.coupling` — one call of the user's function with a run's stream (per_sample's signature rules,
  the user-code guard);
- :mod:`.compare` — divergences of two runs' calls, location and output distances, norms, tolerance;
- :mod:`.tally` — one pair's reading and the sum of the readings;
- :mod:`.nonfinite` — NaN/±inf neighbours; :mod:`.search` — the hypothesis search of ``neighbours=``;
- :mod:`.plan` — the validated request; :mod:`.verdict` — verdict and summary; :mod:`.core` — :func:`trace`;
- :mod:`.result` — :class:`TraceResult`, :class:`Divergence`, :class:`NonFinite`.
"""

from __future__ import annotations

from privcheck.tracing.core import trace
from privcheck.tracing.result import Divergence, NonFinite, TraceResult

__all__ = ["trace", "TraceResult", "Divergence", "NonFinite"]
