"""The architecture holds: no module too long, the import-linter contracts kept,
no module reaching into another's private names.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
PACKAGE = SRC / "punto"

#: The most lines a module may have: past it, split the module by concern.
LINE_LIMIT = 700

#: Modules allowed over the limit while they are being split: none now.
OVER_THE_LIMIT: frozenset[str] = frozenset()

#: Imports of another module's private names allowed while modules are
#: reworked: none now.
PRIVATE_IMPORTS_ALLOWED: frozenset[tuple[str, str]] = frozenset()


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _name(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_is_over_the_line_limit() -> None:
    over = {
        _name(p): n
        for p in _modules()
        if (n := _lines(p)) > LINE_LIMIT and _name(p) not in OVER_THE_LIMIT
    }
    assert over == {}, f"split these modules by concern (at most {LINE_LIMIT} lines): {over}"


def test_the_line_limit_allow_list_names_only_modules_still_over_it() -> None:
    # An entry whose module was split (or deleted) must leave the list, so the
    # list only ever shrinks.
    stale = sorted(
        name
        for name in OVER_THE_LIMIT
        if not (PACKAGE / name).exists() or _lines(PACKAGE / name) <= LINE_LIMIT
    )
    assert stale == [], f"remove from OVER_THE_LIMIT: {stale}"


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _private_imports(path: Path) -> list[str]:
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    return _private_names(path.read_text(encoding="utf-8"), here, package)


def _private_names(source: str, here: str, package: str) -> list[str]:
    """``from punto.x import _name`` (and ``m._name`` on a punto module
    imported as ``m``) where punto.x is another module: a name its module
    keeps to itself.  A private submodule of the importer's own package (the
    C kernel) is fine."""
    tree = ast.parse(source)
    found: list[str] = []
    modules: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if not node.module.startswith("punto"):
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    if node.module not in (here, package):
                        found.append(f"{node.module}.{alias.name}")
                else:
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("punto") and alias.asname:
                    modules[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append(f"{modules[node.value.id]}.{node.attr}")
    return found


def test_no_module_imports_another_modules_private_names() -> None:
    reaching = sorted(
        (_name(p), imported)
        for p in _modules()
        for imported in _private_imports(p)
        if (_name(p), imported) not in PRIVATE_IMPORTS_ALLOWED
    )
    assert reaching == [], f"make these public where they are used from outside: {reaching}"


def test_the_private_import_check_finds_what_it_should() -> None:
    source = (
        "from punto.table.round import _payout, Round\n"
        "from punto.analysis import _kernel\n"
        "from punto.table import replay\n"
        "import punto.table.live as live\n"
        "replay._role(None); live._restore; replay.Replay\n"
    )
    assert sorted(_private_names(source, "punto.analysis.kernel", "punto.analysis")) == [
        "punto.table.live._restore",
        "punto.table.replay._role",
        "punto.table.round._payout",
    ]


#: lint-imports --no-cache, in a process of its own (it edits sys.path).
_LINT = (
    "import sys; from importlinter.cli import lint_imports; "
    "sys.exit(lint_imports(no_cache=True, no_logo=True))"
)


def test_the_import_linter_contracts_are_kept() -> None:
    if importlib.util.find_spec("importlinter") is None:
        pytest.skip("import-linter is not installed (pip install -e '.[dev]')")
    # This checkout's code, whatever the environment's editable install points at.
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    run = subprocess.run(
        [sys.executable, "-c", _LINT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout


# -- the pages' scripts ----------------------------------------------------------------------

#: The pages' own scripts and stylesheets (no build step: each is served as it is).
STATIC = PACKAGE / "server" / "static"

#: The files that add to ``Punto``; each page loads those whose names its scripts use.
SHARED_SCRIPTS = ("common.js", "live.js", "felt.js")


def test_no_page_script_is_over_the_line_limit() -> None:
    over = {p.name: n for p in sorted(STATIC.glob("*.js")) if (n := _lines(p)) > LINE_LIMIT}
    assert over == {}, f"split these scripts by concern (at most {LINE_LIMIT} lines): {over}"


def _exports(script: str) -> set[str]:
    """The names a shared script gives ``Punto``: its last ``return { ... }``."""
    text = (STATIC / script).read_text(encoding="utf-8")
    block = text[text.rindex("return {") + len("return {") :]
    block = block[: block.index("};")] if "};" in block else block[: block.index("}")]
    block = re.sub(r"get (\w+)\(\) \{[^}]*\}", r"\1", block)
    return set(re.findall(r"[A-Za-z_$][\w$]*", block))


def _uses(script: str) -> set[str]:
    """The names of ``Punto`` a script uses: ``Punto.x`` and ``const { x } = Punto``."""
    text = (STATIC / script).read_text(encoding="utf-8")
    used = set(re.findall(r"\bPunto\.(\w+)", text))
    for names in re.findall(r"const \{([^}]*)\} = Punto\b", text):
        used |= {n.strip() for n in names.split(",") if n.strip()}
    return used


def test_every_page_loads_the_shared_scripts_its_own_scripts_use() -> None:
    """A page that uses ``Punto.connect`` loads live.js, one that draws cards
    felt.js, each before the scripts that use them."""
    missing: dict[str, list[str]] = {}
    for page in sorted(STATIC.glob("*.html")):
        scripts = re.findall(r'<script src="/static/([\w.-]+\.js)"', page.read_text("utf-8"))
        given: set[str] = set()
        for script in scripts:
            if script in SHARED_SCRIPTS:
                given |= _exports(script)
            elif (STATIC / script).exists():
                lacking = sorted(_uses(script) - given)
                if lacking:
                    missing[f"{page.name}: {script}"] = lacking
    assert missing == {}, f"load the shared script that defines these first: {missing}"
