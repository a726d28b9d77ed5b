"""The lazy mechanism registry (estimators/registry.py): its table names exactly what a full import
registers, and building one mechanism imports only that mechanism's module (fresh interpreters)."""

from __future__ import annotations

import pytest
from subprocess_json import run_json

from estimators.registry import WHERE
from privcheck.base.errors import UnknownNameError


def _run(code: str) -> dict:
    return run_json(code, timeout=300)


def test_table_names_every_mechanism_class_under_its_own_name():
    """Each entry's class has that CLI name, and every Mechanism subclass with a CLI name is in the table."""
    import importlib

    from estimators.base import Mechanism
    from estimators.registry import mechanism_class

    for name in WHERE:
        assert mechanism_class(name).name == name
    modules = {m.partition(":")[0] for m in WHERE.values()}
    named = {}
    for mod in modules:
        for obj in vars(importlib.import_module(mod)).values():
            if (
                isinstance(obj, type)
                and issubclass(obj, Mechanism)
                and obj.__dict__.get("name")
                and obj.__module__ == mod
            ):
                named[obj.name] = f"{obj.__module__}:{obj.__qualname__}"
    assert named == WHERE


@pytest.mark.parametrize("name", ["de", "laplace", "fedsel-pe"])
def test_building_one_mechanism_imports_only_its_module(name):
    code = (
        "import json, sys\nfrom estimators.registry import mechanism, WHERE\nmechanism(%r)\n"
        "print(json.dumps(sorted(m.partition(':')[0] for m in set(WHERE.values()) if m.partition(':')[0] in sys.modules)))"
        % name
    )
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
