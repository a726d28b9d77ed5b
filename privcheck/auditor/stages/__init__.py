"""The auditor's stages: draw → code → select → estimate → decide, one module each.

- :mod:`~privcheck.auditor.stages.draw` runs the sampler on seeded streams through the backend (every stage's
  draws come from here, each stage from streams of its own name: selection and estimation never share a draw);
- :mod:`~privcheck.auditor.stages.code` fixes the output coding on the pilot (the first selection draws);
- :mod:`~privcheck.auditor.stages.select` chooses candidate events from the selection counts;
- :mod:`~privcheck.auditor.stages.estimate` counts the events on fresh draws and bounds ε (and δ) with exact
  Clopper–Pearson limits;
- :mod:`~privcheck.auditor.stages.decide` turns bounds and exact values into verdicts, for every claim kind.

Code, select and estimate above are the *event* family's (ε and δ claims). The trade-off family (μ-GDP and
accountant claims, ε at δ) plugs its own code (a one-dimensional score), select (thresholds) and estimate
(confidence boxes) into the same draw and decide stages (:mod:`privcheck.auditor.curves`); both are
:class:`privcheck.auditor.pipeline.Strategy` strategies.
"""
