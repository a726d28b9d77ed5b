"""Support events of hashed and sketched reports, recognised on the auto-view probe (issue 20 §2).

A local-hashing or sketch report *supports* a candidate input ``y`` when it is consistent with ``y``'s
encoding (Wang et al. 2017, USENIX Security, Sec. 4.4: ``{x supported ∧ x' not}`` is the likelihood-ratio
event of local hashing). The reports of the LH family come in several layouts; each output is flattened
into *leaves* (scalars and 1-D arrays; nested tuples/lists are walked) and two families are tried:

- :class:`HashSupport` — ``(value, seed)`` leaves plus optional categorical *key* leaves (an attribute
  index, a sketch row): ``y`` is supported when ``hash(u, seed) mod g == value``, with ``u`` the item
  hashed for ``y`` in the report's key cell — ``y`` itself, ``y − 1``, a coordinate of a tuple input, or
  (sketches: ``u = h_j(y)`` by a hash the report does not carry) the item in ``0..MAX_INNER−1`` that best
  matches ``y``'s reports of that cell. Layouts: pure-ldp LH/OLH/FastLH ``(value, seed)``,
  SketchResponse ``((value, seed), row)``, multi-freq-ldpy SMP_LH ``(attribute, (value, seed))`` and
  SPL_LH ``[(value, seed), …]`` (one family per pair).
- :class:`SignatureSupport` — a payload leaf (a vector or a scalar) plus categorical key leaves (the hash
  index of CMS/PCS, the ``(j, l)`` of HCMS): in each key cell, ``y``'s *signature* is the (position,
  value) of the payload that ``y``'s reports hold more often than the other cells do (CMS/PCS: bit
  ``h_j(y)`` of the vector; HCMS: the value ``w_l(h_j(y))``); ``y`` is supported when the payload shows it.

Key leaves must have one law under every input (public randomness: a chi-square homogeneity test on the
probe). Recognition: a family's tables are learned on one half of the probe and it is *accepted* only when, on
the other half, each input's reports support it more often than the other inputs' reports do, by a
two-proportion z-score at least :data:`Z_ACCEPT` above the same score with the seed (or key) leaf
shuffled across reports — a control that keeps every marginal law, so a value that merely depends on
the input is not mistaken for hashing; no family is keyed on a library or class name.
Validity: the tables are public constants learned from probe draws independent of the selection and
estimation draws, so a support bit is a fixed function of one output (post-processing).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

#: a family is accepted when its held-out own-vs-other support z-score reaches this
Z_ACCEPT = 4.0
#: learned hashed items are searched in 0..MAX_INNER-1 (plus the items derived from the input)
MAX_INNER = 64
#: a key leaf is categorical when it takes 2..MAX_KEY_VALUES values in the probe
MAX_KEY_VALUES = 64
#: a seed leaf takes at least this many distinct values in the probe
MIN_SEEDS = 8
#: a learned cell needs this many probe reports of its input
MIN_CELL = 4
#: reports with more leaves than this are not searched (LH-family and sketch reports are small tuples)
MAX_LEAVES = 8


class XXHash:
    """``hash(item, seed) = xxh{bits}(str(item), seed).intdigest()`` (picklable for worker processes)."""

    def __init__(self, bits: int):
        self.bits = bits
        self.__name__ = f"xxh{bits}"

    def __call__(self, item, seed) -> int:
        return self.digest()(str(item), int(seed))

    def digest(self) -> Callable[[str, int], int]:
        """The raw ``(text, seed) -> int`` digest function (cached)."""
        fn = self.__dict__.get("_fn")
        if fn is None:
            import xxhash

            fn = getattr(xxhash, f"xxh{self.bits}_intdigest", None)  # xxhash >= 1.4; older: via the object
            if fn is None:
                cls = xxhash.xxh32 if self.bits == 32 else xxhash.xxh64
                fn = lambda data, seed, cls=cls: cls(data, seed=seed).intdigest()  # noqa: E731
            self._fn = fn
        return fn

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_fn"}


#: hash functions tried on (value, seed) reports: xxhash of str(item) with the report's seed (pure-ldp,
#: multi-freq-ldpy)
HASH_FAMILIES = [XXHash(32), XXHash(64)]


# ------------------------------------------------------------------ flattening
def _leaf_list(o, out: list) -> bool:
    if isinstance(o, np.ndarray):
        if o.ndim == 0:
            out.append(o.item())
        elif o.ndim == 1 and o.dtype.kind in "biuf":
            out.append(o)
        else:
            return False
        return True
    if isinstance(o, (tuple, list)):
        return all(_leaf_list(v, out) for v in o)
    if isinstance(o, (bool, np.bool_, int, float, np.integer, np.floating)):
        out.append(o.item() if isinstance(o, np.generic) else o)
        return True
    return False


def flatten(outputs) -> list[np.ndarray] | None:
    """The leaves of a batch of outputs: one array per leaf — ``(n,)`` for scalar leaves, ``(n, w)`` for
    vector leaves — or None when the outputs do not share one layout of numeric leaves."""
    if isinstance(outputs, np.ndarray) and outputs.dtype != object:
        a = outputs.reshape(len(outputs), -1)
        return [a[:, j] for j in range(a.shape[1])]
    rows = []
    for o in outputs:
        leaves: list = []
        if not _leaf_list(o, leaves):
            return None
        rows.append(leaves)
    if not rows or len({len(r) for r in rows}) != 1:
        return None
    cols = []
    for j in range(len(rows[0])):
        vals = [r[j] for r in rows]
        if isinstance(vals[0], np.ndarray):
            if not all(isinstance(v, np.ndarray) and v.shape == vals[0].shape for v in vals):
                return None
            cols.append(np.stack(vals))
        else:
            if any(isinstance(v, np.ndarray) for v in vals):
                return None
            cols.append(np.asarray(vals))
    return cols


def _int_leaf(col: np.ndarray) -> bool:
    return col.ndim == 1 and (col.dtype.kind in "iu" or (col.dtype.kind == "f" and bool(np.all(col == np.round(col)))))


def _key_cells(leaves: list[np.ndarray], keys: Sequence[int], values: list[list]) -> np.ndarray:
    """Mixed-radix cell code of each report from its key leaves (``-1`` when a key value is unseen)."""
    n = len(leaves[0]) if leaves else 0
    cell = np.zeros(n, dtype=np.int64)
    for k, vals in zip(keys, values):
        pos = np.searchsorted(vals, leaves[k])
        pos_c = np.minimum(pos, len(vals) - 1)
        ok = np.asarray(vals)[pos_c] == leaves[k]
        cell = np.where(ok & (cell >= 0), cell * len(vals) + pos_c, -1)
    return cell


def _same(a: np.ndarray) -> np.ndarray:
    return a


def _shuffled(a: np.ndarray) -> np.ndarray:
    """``a`` in a fixed pseudo-random order (the control of :func:`_score`: a seed or key leaf detached
    from its report keeps its marginal law but loses any tie to the report's value)."""
    return a[np.random.default_rng(0).permutation(len(a))]


def _z(own: int, n_own: int, other: int, n_other: int) -> float:
    """Two-proportion z-score of ``own/n_own`` above ``other/n_other`` (0 when undefined)."""
    if n_own == 0 or n_other == 0:
        return 0.0
    p = (own + other) / (n_own + n_other)
    se = np.sqrt(p * (1 - p) * (1 / n_own + 1 / n_other))
    return 0.0 if se == 0 else float((own / n_own - other / n_other) / se)


# ------------------------------------------------------------------ features
class _Support:
    """Common part of a support family: one support bit per audited input, and its labels."""

    domain: list
    name: str

    def support(self, leaves: list[np.ndarray]) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def labels(self) -> list:
        """Per column: ``(name, atom → text)`` for event descriptions."""
        return support_labels(self.domain)


def support_labels(domain: Sequence) -> list:
    """``(name, atom → text)`` of support-bit columns, one per input of ``domain``: ``x=1 supported`` /
    ``x=1 not supported``."""
    return [(f"x={y!r} supported", lambda v, y=y: f"x={y!r} {'supported' if v else 'not supported'}") for y in domain]


class HashSupport(_Support):
    """Support of input ``domain[i]``: ``hash_fn(inner, seed) mod g == value`` with ``inner`` the item hashed
    for that input in the report's key cell (``table[i][cell]``; ``None``: no support in that cell).

    value, seed: leaf indices; keys: key leaf indices with their sorted probe values ``key_values``.
    """

    def __init__(
        self,
        hash_fn: Callable,
        domain: Sequence,
        g: int,
        value: int,
        seed: int,
        keys: Sequence[int],
        key_values: list[list],
        table: list[list],
        inner: str,
    ):
        self.hash_fn, self.domain, self.g = hash_fn, list(domain), int(g)
        self.value, self.seed, self.keys, self.key_values, self.table = value, seed, list(keys), key_values, table
        where = f", keyed by leaves {self.keys}" if self.keys else ""
        self.name = f"hash support ({hash_fn.__name__}(str({inner}), seed) mod {g}{where}) of inputs {self.domain}"

    def support(self, leaves):
        seeds = leaves[self.seed].astype(np.int64)
        values = leaves[self.value].astype(np.int64)
        cells = _key_cells(leaves, self.keys, self.key_values)
        useeds, inv = np.unique(seeds, return_inverse=True)
        out = np.zeros((len(seeds), len(self.domain)), dtype=bool)
        for i, row in enumerate(self.table):
            for c, u in enumerate(row):
                if u is None:
                    continue
                at = cells == c
                if not at.any():
                    continue
                h = np.array([self.hash_fn(u, s) % self.g for s in useeds.tolist()], dtype=np.int64)
                out[at, i] = h[inv[at]] == values[at]
        return out


class SignatureSupport(_Support):
    """Support of input ``domain[i]``: payload position ``pos[i][cell]`` holds ``val[i][cell]`` (scalar
    payloads: ``pos`` is None). payload, keys: leaf indices; key_values: sorted probe values of the keys."""

    def __init__(
        self,
        domain: Sequence,
        payload: int,
        vector: bool,
        keys: Sequence[int],
        key_values: list[list],
        pos: list[list],
        val: list[list],
    ):
        self.domain, self.payload, self.vector = list(domain), payload, vector
        self.keys, self.key_values, self.pos, self.val = list(keys), key_values, pos, val
        what = "vector" if vector else "value"
        self.name = f"signature support ({what} leaf {payload} keyed by leaves {self.keys}) of inputs {self.domain}"

    def support(self, leaves):
        pay = leaves[self.payload]
        cells = _key_cells(leaves, self.keys, self.key_values)
        n = len(cells)
        out = np.zeros((n, len(self.domain)), dtype=bool)
        ok = cells >= 0
        cc = np.where(ok, cells, 0)
        for i in range(len(self.domain)):
            val = np.asarray(self.val[i], dtype=np.float64)
            known = ok & ~np.isnan(val[cc])
            if self.vector:
                pos = np.asarray(self.pos[i], dtype=np.int64)
                got = pay[np.arange(n), np.maximum(pos[cc], 0)]
            else:
                got = pay
            out[:, i] = known & (got == val[cc])
        return out


class Supports:
    """Feature: the support bits of every accepted family (one column per family and input), then, when
    they number at most :data:`MAX_PATTERN_BITS`, one *support pattern* column ``Σ 2^k bit_k`` whose atoms
    are the conjunctions ``{x supported ∧ x' not …}``."""

    def __init__(self, families: list):
        self.families = families
        self.pattern = sum(len(f.domain) for f in families) <= MAX_PATTERN_BITS
        self.name = " + ".join(f.name for f in families) + (" + support pattern" if self.pattern else "")

    def __call__(self, outputs, n: int) -> np.ndarray:
        leaves = flatten(outputs)
        width = sum(len(f.domain) for f in self.families)
        if leaves is None:
            bits = np.zeros((n, width), dtype=np.int64)
        else:
            bits = np.concatenate([f.support(leaves) for f in self.families], axis=1).astype(np.int64)
        if not self.pattern:
            return bits.astype(np.uint8)
        code = (bits << np.arange(width)).sum(axis=1, keepdims=True)
        return np.concatenate([bits, code], axis=1).astype(np.int32)

    def labels(self) -> list:
        """Per column: ``(name, atom → text)`` for event descriptions."""
        labs = [lab for f in self.families for lab in f.labels()]
        if not self.pattern:
            return labs
        names = [nm for nm, _ in labs]

        def text(v):
            v = int(v)
            return "support pattern: " + ", ".join(
                [nm for k, nm in enumerate(names) if v >> k & 1]
                + [nm.replace(" supported", " not supported") for k, nm in enumerate(names) if not v >> k & 1]
            )

        return labs + [("support pattern", text)]


#: the pattern column is added when the support bits number at most this
MAX_PATTERN_BITS = 10


# ------------------------------------------------------------------ recognition
def _split(n: int) -> tuple[np.ndarray, np.ndarray]:
    idx = np.arange(n)
    return idx % 2 == 0, idx % 2 == 1


def _inner_candidates(y) -> list:
    """Items derived from the input, one per fixed rule: ``y``, ``y − 1`` (an integer input), or
    ``y[a]``, ``y[a] − 1`` for each coordinate ``a`` of a tuple of integers; ``[]`` otherwise."""
    if isinstance(y, (int, np.integer)) and not isinstance(y, bool):
        base = [y]
    elif isinstance(y, tuple) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in y):
        base = list(y)
    else:
        return []
    return [c for b in base for c in (int(b), int(b) - 1)]


def _categorical(col: np.ndarray) -> list | None:
    if not _int_leaf(col):
        return None
    vals = np.unique(col)
    return vals.tolist() if 2 <= vals.size <= MAX_KEY_VALUES else None


def chi2_homogeneity_p(table: np.ndarray) -> float:
    """p-value of Pearson's chi-square test that the rows of a count table share one law (no continuity
    correction; columns with zero total dropped). ``table``: (rows, categories) non-negative counts."""
    from scipy.special import chdtrc

    t = np.asarray(table, dtype=float)
    t = t[:, t.sum(axis=0) > 0]
    if t.shape[0] < 2 or t.shape[1] < 2:
        return 1.0
    expected = t.sum(axis=1, keepdims=True) * t.sum(axis=0, keepdims=True) / t.sum()
    stat = float(((t - expected) ** 2 / expected).sum())
    return float(chdtrc((t.shape[0] - 1) * (t.shape[1] - 1), stat))


#: a key leaf must look independent of the input: its probe histograms agree at this level
KEY_ALPHA = 1e-3


def _public_key(cols: list[np.ndarray]) -> bool:
    """Whether a categorical leaf has one law under every input (a hash index, a sketch row, a sampled
    attribute: public randomness), by the chi-square homogeneity test at :data:`KEY_ALPHA`."""
    vals = np.unique(np.concatenate(cols))
    table = np.array([[(c == v).sum() for v in vals] for c in cols])
    return chi2_homogeneity_p(table) >= KEY_ALPHA


def _score(supports: list[np.ndarray], masks: list[np.ndarray]) -> float:
    """Held-out z-score: reports of input i supporting i versus other inputs' reports supporting i."""
    own = n_own = other = n_other = 0
    for i in range(len(supports)):
        own += int(supports[i][i][masks[i]].sum())
        n_own += int(masks[i].sum())
        for k in range(len(supports)):
            if k != i:
                other += int(supports[k][i][masks[k]].sum())
                n_other += int(masks[k].sum())
    return _z(own, n_own, other, n_other)


def _hash_candidates(leaves_by: list[list[np.ndarray]]):
    """(value leaf, seed leaf, g, key leaves) hypotheses of a hashing report layout (each pair first
    without keys, then keyed by every other categorical leaf)."""
    pooled = [np.concatenate([lv[j] for lv in leaves_by]) for j in range(len(leaves_by[0]))]
    ints = [j for j, c in enumerate(pooled) if _int_leaf(c)]
    out: list = []
    for s in ints:
        ns = np.unique(pooled[s]).size
        if ns < MIN_SEEDS:
            continue
        for v in ints:
            if v == s:
                continue
            col = pooled[v]
            nv = np.unique(col).size
            if col.min() < 0 or nv >= ns or not 2 <= int(col.max()) + 1 <= 1 << 16:
                continue
            keys = [
                k
                for k in ints
                if k not in (s, v)
                and _categorical(pooled[k]) is not None
                and np.unique(pooled[k]).size < ns
                and _public_key([lv[k] for lv in leaves_by])
            ]
            out.append((v, s, int(col.max()) + 1, []))
            if keys:
                out.append((v, s, int(col.max()) + 1, keys))
    return out


def _hash_feature(domain: list, leaves_by: list[list[np.ndarray]]):
    """The best accepted :class:`HashSupport` over the layout hypotheses as ``(z, feature)``, else None.

    Per hypothesis, the fixed item rules of every hash function are tried first; the tables learned per
    key cell only when no rule is accepted (over ``0..MAX_INNER−1`` when the seeds are few, else over the
    items derived from the input)."""
    try:
        import xxhash  # noqa: F401
    except ImportError:
        return None
    best = None
    for v, s, g, keys in _hash_candidates(leaves_by):
        pooled_keys = [sorted(np.unique(np.concatenate([lv[k] for lv in leaves_by])).tolist()) for k in keys]
        n_cells = int(np.prod([len(k) for k in pooled_keys])) if keys else 1
        cells = [_key_cells(lv, keys, pooled_keys) for lv in leaves_by]
        args = (domain, leaves_by, v, s, g, cells, n_cells)
        found = [(z, fam, table, inner) for fam in HASH_FAMILIES for table, inner, z in _fixed_tables(fam, *args)]
        if not any(f[0] >= Z_ACCEPT for f in found):
            found = [
                (z, fam, table, inner) for fam in HASH_FAMILIES for table, inner, z in [_learned_table(fam, *args)]
            ]
        for z, fam, table, inner in found:
            if z >= Z_ACCEPT and (best is None or z > best[0]):  # ties: the earlier (keyless, fixed) wins
                best = (z, HashSupport(fam, domain, g, v, s, keys, pooled_keys, table, inner))
    return best


def _match(fam, items: list, seeds: np.ndarray, values: np.ndarray, g: int) -> np.ndarray:
    """``(len(items), n)`` bool: ``fam(item, seed) mod g == value`` (hashes computed per distinct seed)."""
    us, inv = np.unique(seeds, return_inverse=True)
    fn, sl = fam.digest() if hasattr(fam, "digest") else (lambda t, s: fam(t, s)), us.tolist()
    h = np.array([[fn(t, s) for s in sl] for t in map(str, items)], dtype=np.uint64).reshape(len(items), -1)
    return (h % np.uint64(g)).astype(np.int64)[:, inv] == values[None, :]


#: learned tables search 0..MAX_INNER-1 only when the probe holds at most this many distinct seeds
MAX_SEEDS_FOR_SEARCH = 512


def _fixed_tables(fam, domain, leaves_by, v, s, g, cells, n_cells):
    """Yield ``(table, rule, z)`` for the fixed item rules (``y``, ``y − 1``, coordinates), scored on the
    whole probe (a handful of hypotheses, none fitted)."""
    derived = [_inner_candidates(y) for y in domain]
    n_rules = min(len(d) for d in derived) if derived else 0
    masks = [np.ones(len(lv[s]), bool) for lv in leaves_by]
    ints = all(isinstance(y, (int, np.integer)) for y in domain)
    for r in range(n_rules):
        items = [d[r] for d in derived]
        sup, null = (
            [_match(fam, items, shuf(lv[s].astype(np.int64)), lv[v].astype(np.int64), g) for lv in leaves_by]
            for shuf in (_same, _shuffled)
        )  # a generator: the control is drawn only when needed
        rule = ["item", "item-1"][r] if ints else ["item[a]", "item[a]-1"][r % 2].replace("a", str(r // 2))
        z = _score(sup, masks)
        yield [[u] * n_cells for u in items], rule, z - _score(null, masks) if z >= Z_ACCEPT else z


def _learned_table(fam, domain, leaves_by, v, s, g, cells, n_cells):
    """``(table, rule, z)``: per input and key cell the item with the best match on the first half of the
    probe, scored on the second half."""
    derived = [_inner_candidates(y) for y in domain]
    seeds = [lv[s].astype(np.int64) for lv in leaves_by]
    values = [lv[v].astype(np.int64) for lv in leaves_by]
    few = np.unique(np.concatenate(seeds)).size <= MAX_SEEDS_FOR_SEARCH
    cands = sorted(set(range(MAX_INNER) if few else ()).union(*map(set, derived)))
    if not cands:
        return [], "", 0.0
    match = [_match(fam, cands, seeds[k], values[k], g) for k in range(len(domain))]
    table = []
    for i in range(len(domain)):
        learn, _ = _split(len(seeds[i]))
        row = []
        for c in range(n_cells):
            at = learn & (cells[i] == c)
            row.append(cands[int(np.argmax(match[i][:, at].sum(axis=1)))] if at.sum() >= MIN_CELL else None)
        table.append(row)
    index = {u: j for j, u in enumerate(cands)}

    def supports(m):
        out = []
        for k in range(len(domain)):
            s_k = np.zeros((len(domain), len(seeds[k])), bool)
            for i in range(len(domain)):
                for c, u in enumerate(table[i]):
                    if u is not None:
                        at = cells[k] == c
                        s_k[i, at] = m[k][index[u], at]
            out.append(s_k)
        return out

    held_out = [_split(len(seeds[k]))[1] for k in range(len(domain))]
    z = _score(supports(match), held_out)
    if z >= Z_ACCEPT:  # the control: the same tables with the seeds shuffled
        z -= _score(
            supports([_match(fam, cands, _shuffled(seeds[k]), values[k], g) for k in range(len(domain))]), held_out
        )
    return table, "item learned per cell", z


def _signature_tables(domain, leaves_by, payload, keys, pooled_keys, n_cells):
    """Learned (position, value) per input and cell on the first half; returns (pos, val, held-out z)."""
    vector = leaves_by[0][payload].ndim == 2
    cells = [_key_cells(lv, keys, pooled_keys) for lv in leaves_by]
    pays = [lv[payload] if vector else lv[payload][:, None] for lv in leaves_by]
    values = np.unique(np.concatenate([p.ravel() for p in pays]))
    if values.size > MAX_KEY_VALUES:
        return None
    halves = [_split(len(c)) for c in cells]
    # rate[v][i][c, pos]: frequency of value v at each position in cell c of input i (learning half)
    rates = np.full((values.size, len(domain), n_cells, pays[0].shape[1]), np.nan)
    for i in range(len(domain)):
        learn = halves[i][0]
        for c in range(n_cells):
            at = learn & (cells[i] == c)
            if at.sum() >= MIN_CELL:
                for a, val in enumerate(values):
                    rates[a, i, c] = (pays[i][at] == val).mean(axis=0)
    base = np.nanmedian(rates.reshape(values.size, -1, pays[0].shape[1]), axis=1)  # per value and position
    pos = [[None] * n_cells for _ in domain]
    val = [[np.nan] * n_cells for _ in domain]
    for i in range(len(domain)):
        for c in range(n_cells):
            if np.isnan(rates[0, i, c, 0]):
                continue
            dev = rates[:, i, c] - base
            a, p = np.unravel_index(int(np.nanargmax(dev)), dev.shape)
            pos[i][c], val[i][c] = int(p), float(values[a])
    feat = SignatureSupport(domain, payload, vector, keys, pooled_keys, pos, val)
    sup = [feat.support(lv).T for lv in leaves_by]
    null = [feat.support([_shuffled(c) if j in keys else c for j, c in enumerate(lv)]).T for lv in leaves_by]
    held_out = [h[1] for h in halves]
    return feat, _score(sup, held_out) - _score(null, held_out)


def _signature_feature(domain: list, leaves_by: list[list[np.ndarray]]):
    """The best accepted :class:`SignatureSupport` (a payload leaf keyed by categorical leaves), else None."""
    pooled = [np.concatenate([lv[j] for lv in leaves_by]) for j in range(len(leaves_by[0]))]
    maybe = {j: _categorical(c) for j, c in enumerate(pooled) if c.ndim == 1}
    cats: dict[int, list] = {j: v for j, v in maybe.items() if v is not None}
    public = [j for j in cats if _public_key([lv[j] for lv in leaves_by])]
    n_probe = min(len(lv[0]) for lv in leaves_by)
    best = None
    for payload in range(len(pooled)):
        if pooled[payload].ndim == 1 and payload not in cats:
            continue
        keys = [k for k in public if k != payload]
        if not keys:
            continue
        n_cells = int(np.prod([len(cats[k]) for k in keys]))
        if n_cells * 2 * MIN_CELL > n_probe // 2:
            continue
        found = _signature_tables(domain, leaves_by, payload, keys, [cats[k] for k in keys], n_cells)
        if found is not None and found[1] >= Z_ACCEPT and (best is None or found[1] > best[1]):
            best = found
    return None if best is None else (best[1], best[0])


def support_families(probe: dict) -> list:
    """The support families accepted on the probe (``{input: outputs}``, keyed by the audited inputs);
    ``[]`` when no family reproduces the reports' support structure. Wrap them in :class:`Supports`."""
    domain = list(probe)
    flat = [flatten(probe[y]) for y in domain]
    if any(lv is None for lv in flat):
        return []
    leaves_by = [lv for lv in flat if lv is not None]
    if len({len(lv) for lv in leaves_by}) != 1 or not 2 <= len(leaves_by[0]) <= MAX_LEAVES:
        return []
    found = []
    h, sig = _hash_feature(domain, leaves_by), _signature_feature(domain, leaves_by)
    if sig is not None and (h is None or sig[0] > h[0]):
        return [sig[1]]
    if h is not None:
        h = h[1]
        found.append(h)
        used = (h.value, h.seed)
        more = _hash_feature(
            domain,
            [[np.zeros(len(lv[0]), np.int64) if j in used else lv[j] for j in range(len(lv))] for lv in leaves_by],
        )
        if more is not None:
            found.append(more[1])
    return found
