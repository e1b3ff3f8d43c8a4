"""The package and its pins: pyproject agrees with the requirements files, the lock pins them all,
`engine` imports nothing from `adapters`, and the `memengine` command is wired."""
from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())


def requirement_lines(name: str) -> list[str]:
    lines = (REPO / name).read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(lines: list[str]) -> dict[str, str]:
    """{canonical name: version} from `name[extra]==version` lines; every line must be an exact pin."""
    out = {}
    for line in lines:
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)(\[[A-Za-z0-9_,\-]+\])?==([^\s;]+)", line)
        assert m, f"not an exact pin: {line!r}"
        out[canonical(m.group(1))] = m.group(3)
    return out


def test_torch_is_the_first_requirement():
    # pip settles the first line first: without this, sentence-transformers pulls a CUDA torch.
    assert requirement_lines("requirements.txt")[0] == "torch==2.13.0"
    assert PYPROJECT["project"]["dependencies"][0] == "torch==2.13.0"


def test_pyproject_pins_the_same_direct_dependencies_as_the_requirements_files():
    project = PYPROJECT["project"]
    extras = project["optional-dependencies"]
    runtime = project["dependencies"] + extras["api"] + extras["cockpit"] + extras["postgres"]
    assert sorted(runtime) == sorted(requirement_lines("requirements.txt"))
    assert sorted(extras["dev"]) == sorted(requirement_lines("requirements-dev.txt"))


def test_the_lock_pins_every_direct_dependency_at_the_same_version():
    locked = pins([line for line in requirement_lines("requirements.lock") if "==" in line])
    direct = pins(requirement_lines("requirements.txt") + requirement_lines("requirements-dev.txt"))
    assert "memengine" not in locked  # the project itself is never in its own lock
    for name, version in direct.items():
        # torch's wheel here carries a local version label (2.13.0+cpu); the pin is the public part
        assert locked.get(name, "").split("+")[0] == version, name
    assert "psycopg-binary" in locked  # the extra's package is resolved too


def test_engine_source_imports_nothing_from_the_adapters_or_the_command():
    offenders = []
    for path in sorted((REPO / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            offenders += [f"{path.relative_to(REPO)}: {n}" for n in names
                          if n.split(".")[0] in ("adapters", "memengine", "cockpit", "evaluation")]
    assert offenders == []
    assert not (REPO / "engine" / "__main__.py").exists()  # `python -m memengine` is the command


def test_importing_engine_loads_no_adapter_module(tmp_path):
    code = ("import sys, engine, engine.lock; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('adapters', 'memengine')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         env={"PYTHONPATH": str(REPO)}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_the_console_script_runs_the_command_line(monkeypatch, capsys):
    assert PYPROJECT["project"]["scripts"] == {"memengine": "memengine.__main__:main"}
    from memengine.__main__ import main

    monkeypatch.setattr(sys, "argv", ["memengine", "--help"])  # a console script reads sys.argv
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: memengine") and "serve" in out and "mcp" in out


def test_property_tests_use_a_fixed_seed_in_ci_and_a_random_one_locally():
    from conftest import hypothesis_profile_name
    from hypothesis import settings

    assert hypothesis_profile_name({"CI": "true"}) == "ci"
    assert hypothesis_profile_name({}) == "dev"
    assert settings.get_profile("ci").derandomize and settings.get_profile("ci").print_blob
    assert not settings.get_profile("dev").derandomize and settings.get_profile("dev").print_blob
