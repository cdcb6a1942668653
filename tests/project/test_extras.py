"""The extras: the core commands run with no optional package
importable, and a command whose extra is missing says which to install -- one
line, exit 2, nothing done -- never an ImportError traceback.

Each test runs ``punto`` in a fresh process whose meta path refuses the
optional packages, as in an environment where they were never installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import punto
from punto.extras import COMMAND_EXTRAS, EXTRA_OF_MODULE, MissingExtraError, missing_extra

#: Every optional top-level package punto may import.
OPTIONAL = tuple(EXTRA_OF_MODULE)

#: Runs ``punto.cli.main`` with the packages named in argv[1] (comma-separated)
#: unimportable, and reports which optional packages got imported all the same.
_RUN = """
import sys
blocked = tuple(sys.argv.pop(1).split(","))

class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Blocker())
from punto.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _punto(
    *args: str, blocked: tuple[str, ...] = OPTIONAL, cwd: Path, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    # The punto under test, whatever the working directory.
    source = str(Path(punto.__file__).resolve().parent.parent)
    path = os.pathsep.join(filter(None, (source, os.environ.get("PYTHONPATH"))))
    return subprocess.run(
        [sys.executable, "-c", _RUN, ",".join(blocked), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": path},
        input=stdin,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (("serve", "--port", "8799"), "server"),
        (("simulate", "tiger-baccarat", "--coups", "1000"), "sim"),
        (("counting", "tiger-baccarat"), "sim"),
    ],
)
def test_a_command_without_its_extra_names_the_extra_in_one_line(
    tmp_path: Path, args: tuple[str, ...], extra: str
) -> None:
    done = _punto(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert (
        done.stderr == f"punto {args[0]}: needs the {extra} extra: pip install 'punto[{extra}]'\n"
    )
    assert list(tmp_path.iterdir()) == []  # refused before it started: no punto.db


def test_a_postgresql_event_log_without_the_postgres_extra_names_it(tmp_path: Path) -> None:
    url = "postgresql+psycopg://punto@127.0.0.1:9/punto"
    done = _punto("table", "tiger-baccarat", "--database", url, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "punto table: needs the postgres extra: pip install 'punto[postgres]'\n"


@pytest.mark.parametrize("command", ["table", "tournament"])
def test_an_event_log_in_a_file_without_the_store_extra_names_it(
    tmp_path: Path, command: str
) -> None:
    args = ("tiger-baccarat",) if command == "table" else ("--entrants", "8", "--seed", "1")
    done = _punto(command, *args, "--database", "events.db", cwd=tmp_path, stdin="quit\n")
    assert done.returncode == 2
    assert done.stderr == f"punto {command}: needs the store extra: pip install 'punto[store]'\n"
    assert list(tmp_path.iterdir()) == []  # no file made


def test_serve_help_needs_no_extra(tmp_path: Path) -> None:
    done = _punto("serve", "--help", cwd=tmp_path)
    assert done.returncode == 0
    assert "--database" in done.stdout


def test_the_core_commands_run_with_no_optional_package(tmp_path: Path) -> None:
    assert _punto("--help", cwd=tmp_path).returncode == 0
    games = json.loads(_punto("games", "--json", cwd=tmp_path).stdout)
    assert {g["id"] for g in games} >= {"tiger-baccarat", "dragon-tiger", "tiger-buffalo"}
    rules = _punto("rules", "dragon-tiger", cwd=tmp_path)
    assert rules.returncode == 0
    assert "dragon" in rules.stdout.lower()
    deal = _punto(
        "deal",
        "tiger-baccarat",
        "--cards",
        "QH 2C 2D KS 3H 4D",
        "--bet",
        "tiger=10",
        "--json",
        cwd=tmp_path,
    )
    assert deal.returncode == 0, deal.stderr
    (bet,) = json.loads(deal.stdout)["bets"]
    assert (bet["event"], bet["net"]) == (
        "three_cards",
        "200.00",
    )  # the Tiger on three cards pays 20 to 1
    odds = _punto("odds", "dragon-tiger", "--json", cwd=tmp_path)
    assert odds.returncode == 0, odds.stderr
    for command in ("table", "play"):
        done = _punto(command, "tiger-baccarat", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    done = _punto("tournament", "formats", cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_missing_extra_names_the_commands_extra_first() -> None:
    error = ModuleNotFoundError("No module named 'sqlalchemy'", name="sqlalchemy")
    refusal = missing_extra("serve", error)
    assert isinstance(refusal, MissingExtraError)
    assert str(refusal) == "punto serve: needs the server extra: pip install 'punto[server]'"
    table = missing_extra("table", error)
    assert table is not None
    assert table.extra == "store"  # an event log in a database file


def test_a_missing_module_of_no_extra_is_not_called_an_extra() -> None:
    error = ModuleNotFoundError("No module named 'punto.nothing'", name="punto.nothing")
    assert missing_extra("games", error) is None


def test_every_extra_named_is_declared_in_pyproject() -> None:
    import tomllib

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    declared = set(tomllib.loads(pyproject.read_text("utf-8"))["project"]["optional-dependencies"])
    named = set(EXTRA_OF_MODULE.values()) | {extra for extra, _ in COMMAND_EXTRAS.values()}
    # "report" is declared with the charts; every other extra must be here.
    assert named - {"report"} <= declared


def test_a_game_file_read_through_its_cache_is_what_tomllib_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil
    import tomllib

    from punto.rules.games import parsed

    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # the cache is written as a .pyc is
    games = Path(punto.__file__).parent / "rules" / "games"
    sources = sorted(games.glob("*.toml"))
    expected = {source.name: tomllib.loads(source.read_text("utf-8")) for source in sources}
    for source in sources:
        shutil.copy(source, tmp_path / source.name)
        assert parsed.read_toml(str(tmp_path / source.name)) == expected[source.name]
        assert (tmp_path / "__pycache__" / f"{source.name}.marshal").exists()

    def no_parsing(text: str) -> dict[str, object]:
        raise AssertionError("parsed again although the file did not change")

    with monkeypatch.context() as patched:
        patched.setattr(tomllib, "loads", no_parsing)
        for source in sources:  # from the cache: dates and all, equal to tomllib's
            assert parsed.read_toml(str(tmp_path / source.name)) == expected[source.name]
    # An edited file is parsed again, not taken from the cache of its old text.
    edited = tmp_path / "baccarat_tournament.toml"
    edited.write_text(edited.read_text("utf-8").replace('title = "', 'title = "Edited ', 1))
    assert parsed.read_toml(str(edited))["title"] == "Edited Baccarat Tournament"
    # A damaged cache is parsed around.
    (tmp_path / "__pycache__" / "dragon_tiger.toml.marshal").write_bytes(b"\x00garbage")
    assert parsed.read_toml(str(tmp_path / "dragon_tiger.toml")) == expected["dragon_tiger.toml"]


@pytest.mark.parametrize(
    ("args", "blocked", "refusal"),
    [
        (
            (),
            ("matplotlib",),
            "punto report: needs the report extra for its charts: pip install 'punto[report]'",
        ),
        (
            ("--pdf", "--counting-shoes", "0"),
            ("playwright",),
            "punto report: needs the report extra to print --pdf: pip install 'punto[report]'",
        ),
        (
            (),
            ("numba",),
            "punto report: needs the sim extra for its counting run of the side bets: "
            "pip install 'punto[sim]', or --counting-shoes 0 to leave that section out",
        ),
    ],
    ids=["charts", "pdf", "counting run"],
)
def test_report_without_an_extra_it_needs_names_it_before_writing(
    tmp_path: Path, args: tuple[str, ...], blocked: tuple[str, ...], refusal: str
) -> None:
    done = _punto("report", "tiger-baccarat", "--out", "out", *args, blocked=blocked, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", refusal + "\n")
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.mark.slow
def test_report_without_its_counting_run_needs_the_report_extra_alone(tmp_path: Path) -> None:
    """What the README says: the core and [report]; [sim] only for the counting run."""
    # numpy comes with matplotlib, whatever extra asked for it; numba does not
    only_report = tuple(m for m in OPTIONAL if EXTRA_OF_MODULE[m] != "report" and m != "numpy")
    done = _punto(
        "report",
        "tiger-baccarat",
        "--out",
        "out",
        "--counting-shoes",
        "0",
        blocked=only_report,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {Path('out') / 'index.html'}\n"
    assert "Counting vulnerability" not in (tmp_path / "out" / "index.html").read_text("utf-8")
