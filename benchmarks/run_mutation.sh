#!/usr/bin/env bash
# Mutation testing with mutmut 3 — outside CI (slow): does the test suite notice a wrong formula?
#
# Usage:  benchmarks/run_mutation.sh [core|full|FILE.py ...] [-j N]
#   core (default)  the formula, estimator and sampler modules pinned by issue 15
#                   (estimators/frequency.py, estimators/direct_encoding.py, the Taylor and
#                   inverse-moment functions of estimators/wireless.py, accountants/composition.py,
#                   accountants/gdp.py) against their fast tests; ~30–40 min on 2 shared cores
#   full            every file of estimators/, accountants/ and privcheck/auditor/ against the
#                   whole suite (the [tool.mutmut] section of pyproject.toml; hours)
#   FILE.py ...     only these files (paths relative to the checkout), against the core tests
#   -j N            parallel mutant workers (default 2)
#   MUTANTS="glob …" (environment) only the mutants whose names match, e.g.
#                   MUTANTS="estimators.frequency.x_c_hat*" benchmarks/run_mutation.sh estimators/frequency.py
#
# It works on a scratch copy of the checkout's files ($MUTATION_DIR, default
# /tmp/privcheck-mutation), never in the checkout itself, and ends with the score and the list of
# surviving mutants (also written to $MUTATION_DIR/mutation-summary.txt), and writes the results as data to
# benchmarks/results/mutation_<scope>.json ($MUTATION_RESULTS), from which benchmarks/mutation_report.py
# renders the README's mutation section. Inspect a survivor with
#   (cd $MUTATION_DIR && $ROOT/.venv/bin/mutmut show <name>)
# Needs mutmut >= 3 in the venv (installed from PyPI on first use).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
WORK="${MUTATION_DIR:-/tmp/privcheck-mutation}"
CHILDREN=2
SCOPE=()
while [ $# -gt 0 ]; do
  case "$1" in
    -j) CHILDREN="$2"; shift 2 ;;
    *) SCOPE+=("$1"); shift ;;
  esac
done
[ ${#SCOPE[@]} -eq 0 ] && SCOPE=(core)

"$PY" -c "import mutmut" 2>/dev/null || "$PY" -m pip install -q 'mutmut>=3.3'
MUTMUT="$(dirname "$PY")/mutmut"

rm -rf "$WORK"
mkdir -p "$WORK"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$WORK")
cd "$WORK"

# The core tests: fast, and between them they pin every formula of the core modules.
CORE_TESTS="tests/test_frequency_estimators.py tests/test_estimator_check.py tests/test_estimator_models.py \
tests/test_accountants_core.py tests/test_evidence.py tests/test_mechanisms_fedsel.py"
CORE_FILES="estimators/frequency.py estimators/direct_encoding.py estimators/wireless.py \
accountants/composition.py accountants/gdp.py"

CORE_MUTANTS="estimators.frequency.* estimators.direct_encoding.* estimators.wireless.x_taylor_inverse* \
estimators.wireless.x_inverse_moments_exact* estimators.wireless.x_count_pmf* accountants.composition.* accountants.gdp.*"
if [ "${SCOPE[0]}" = core ] && [ -z "${MUTANTS:-}" ]; then MUTANTS="$CORE_MUTANTS"; fi

if [ "${SCOPE[0]}" != full ]; then
  if [ "${SCOPE[0]}" = core ]; then FILES="$CORE_FILES"; else FILES="${SCOPE[*]}"; fi
  FILES="$FILES" TESTS="$CORE_TESTS" "$PY" - <<'PYEOF'
import os, pathlib, re
p = pathlib.Path("pyproject.toml")
text = p.read_text()
files = os.environ["FILES"].split()
tests = os.environ["TESTS"].split()
lst = lambda xs: "[" + ", ".join(f'"{x}"' for x in xs) + "]"
text = re.sub(r'(?m)^only_mutate = .*$', f"only_mutate = {lst(files)}", text)
text = re.sub(r'(?m)^pytest_add_cli_args_test_selection = .*$',
              f"pytest_add_cli_args_test_selection = {lst(tests)}", text)
p.write_text(text)
print("mutating:", *files)
PYEOF
fi

start=$(date +%s)
# shellcheck disable=SC2086  # MUTANTS is a list of globs, split on purpose (quoted against the shell)
set -f
"$MUTMUT" run --max-children "$CHILDREN" ${MUTANTS:-} > mutation-run.log 2>&1 || true
set +f
"$MUTMUT" results --all true > mutation-results.txt 2>&1 || true
secs=$(( $(date +%s) - start ))

# the results as data (benchmarks/results/mutation_<scope>.json): counts per status and per module, and every
# survivor with its diff; benchmarks/mutation_report.py renders the README section from it
SCOPE_NAME="${SCOPE[0]}"; [ ${#SCOPE[@]} -gt 1 ] || [ "${SCOPE_NAME%.py}" != "$SCOPE_NAME" ] && SCOPE_NAME=files
RESULTS="${MUTATION_RESULTS:-$ROOT/benchmarks/results/mutation_${SCOPE_NAME}.json}"
COMMIT="$(cd "$ROOT" && git rev-parse HEAD)"
DIRTY="$(cd "$ROOT" && git status --porcelain --untracked-files=no -- estimators accountants privcheck tests | wc -l)"
"$PY" - "$secs" "$RESULTS" "$SCOPE_NAME" "$CHILDREN" "$COMMIT" "$DIRTY" "${FILES:-full}" "$MUTMUT" <<'PYEOF'
import collections, datetime, json, re, subprocess, sys
secs, results, scope, children, commit, dirty, files, mutmut = sys.argv[1:9]
lines = [l.strip() for l in open("mutation-results.txt") if ":" in l]
status = collections.Counter()
per_module = collections.defaultdict(collections.Counter)
survivors = []
for l in lines:
    name, _, st = l.rpartition(":")
    name, st = name.strip(), st.strip()
    status[st] += 1
    module = re.split(r"\.x(?:_|\u01c1)", name, maxsplit=1)[0]
    per_module[module][st] += 1
    if st == "survived":
        show = subprocess.run([mutmut, "show", name], capture_output=True, text=True)
        survivors.append({"name": name, "module": module, "diff": show.stdout[-4000:]})
killed = status.get("killed", 0)
decided = killed + status.get("survived", 0)
import importlib.metadata as md
data = {
    "date": datetime.date.today().isoformat(),
    "mutmut": md.version("mutmut"),
    "scope": scope,
    "files": files.split(),
    "children": int(children),
    "seconds": int(secs),
    "commit": commit,
    "uncommitted_changes": int(dirty) > 0,
    "status": dict(sorted(status.items())),
    "modules": {m: dict(sorted(c.items())) for m, c in sorted(per_module.items())},
    "survivors": survivors,
}
with open(results, "w", encoding="utf-8") as fh:
    json.dump(data, fh, indent=1, ensure_ascii=False)
    fh.write("\n")
out = [f"mutants: {sum(status.values())}  " + ", ".join(f"{k} {v}" for k, v in sorted(status.items())),
       f"score (killed / (killed + survived)): {killed}/{decided} = {killed / decided:.1%}" if decided else "score: n/a",
       f"seconds: {secs}", f"results: {results}", "surviving mutants:"] + [f"  {s['name']}" for s in survivors]
open("mutation-summary.txt", "w").write("\n".join(out) + "\n")
print("\n".join(out))
PYEOF
echo "details: $WORK/mutation-results.txt, log: $WORK/mutation-run.log"
