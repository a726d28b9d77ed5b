"""The lazy mechanism registry (estimators/registry.py): its table names exactly what a full import
registers, and building one mechanism imports only that mechanism's module (fresh interpreters)."""
from __future__ import annotations

import pytest
from subprocess_json import run_json

from estimators.registry import WHERE
from privcheck.errors import UnknownNameError


def _run(code: str) -> dict:
    return run_json(code, timeout=300)


def test_table_equals_what_a_full_import_registers():
    got = _run("import json\nimport estimators.mechanisms\nfrom estimators.registry import MECHANISMS\n"
               "print(json.dumps({n: c.__module__ + ':' + c.__qualname__ for n, c in MECHANISMS.items()}))")
    assert got == WHERE


@pytest.mark.parametrize("name", ["de", "laplace", "fedsel-pe"])
def test_building_one_mechanism_imports_only_its_module(name):
    code = ("import json, sys\nfrom estimators.registry import mechanism, WHERE\nmechanism(%r)\n"
            "print(json.dumps(sorted(m.partition(':')[0] for m in set(WHERE.values()) if m.partition(':')[0] in sys.modules)))"
            % name)
    own = WHERE[name].partition(":")[0]
    loaded = _run(code)
    assert own in loaded
    assert "estimators.quantization" not in loaded or own == "estimators.quantization"
    assert len(loaded) < len(set(m.partition(":")[0] for m in WHERE.values()))


def test_unknown_name_lists_every_mechanism():
    from estimators.registry import mechanism

    with pytest.raises(UnknownNameError) as err:
        mechanism("no-such-mechanism")
    assert str(err.value) == f"unknown mechanism 'no-such-mechanism'; allowed: {', '.join(sorted(WHERE))}"
