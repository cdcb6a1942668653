"""The clause-coverage table: every numbered clause of the five rules files,
what implements it and which tests check it, generated from the code and the
tests so that a clause without a test shows.

    python scripts/clause_coverage.py            # write docs/clause-coverage.md
    python scripts/clause_coverage.py --check    # exit 1 if the committed file is stale
    python scripts/clause_coverage.py --extract ../shared/rules   # rewrite docs/clauses.json

Sources, all in the repository (see docs/clause-coverage.md's preamble):

* ``docs/clauses.json`` -- the numbered clauses, extracted once from
  ``../shared/rules/*.txt`` (``--extract``) and committed, so that the
  table can be built without the shared folder; ``tests/project/test_clause_coverage.py``
  checks it against the folder when the folder is there.
* implementation -- every entry of a game's TOML (``src/punto/rules/games/*.toml``)
  that cites the clause, whatever table it sits in; and the pointers of
  ``docs/clause-status.toml`` (``path:name``) for a clause no game data cites.
* tests -- test functions named ``test_<game_id>_<clause>_<what>`` (dots and
  hyphens written ``_``), read from ``tests/<layer>/test_*.py`` (but
  ``tests/security/``) without running them; a
  name may chain clauses with ``_and_`` (``5_18_1_and_5_18_2``) or give a
  range of sibling clauses with ``_to_`` (``4_1_3_to_4_1_14``); and
  ``@pytest.mark.clause("<game-id>", "<clause>", ...)`` for a test that
  covers clauses its name does not (e.g. one parametrized over games).
* not applicable -- ``docs/clause-status.toml``, each with its reason.

This is a development tool: it reads the checkout (tests, docs), which an
installed punto does not have, so it lives in ``scripts/`` and not in the
package.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CLAUSES = ROOT / "docs" / "clauses.json"
STATUS = ROOT / "docs" / "clause-status.toml"
OUTPUT = ROOT / "docs" / "clause-coverage.md"
GAMES = ROOT / "src" / "punto" / "rules" / "games"
TESTS = ROOT / "tests"

# The sections whose every clause must be tested or not applicable:
# How to Play, Settlement, Irregularities, General Provisions.
STRICT_SECTIONS = frozenset({"3", "4", "5", "6"})

TESTED = "tested"
UNTESTED = "implemented-untested"
UNLINKED = "tested-unlinked"
MISSING = "missing"
NOT_APPLICABLE = "not applicable"
STATUSES = (TESTED, NOT_APPLICABLE, UNTESTED, UNLINKED, MISSING)

# A numbered clause line of a rules file: list markers, markdown emphasis and
# headings around a dotted number ("3.10.4.1", "2.1.", "**5.1**").
_CLAUSE_LINE = re.compile(r"^[\s\-*#]*(\d+(?:\.\d+)+)\.?(?:\*\*)?\s+(\S.*)$")
# A section heading, in the body or the table of contents ("## **3. How to Play**").
_SECTION_LINE = re.compile(r"^[\s\-*#]*(\d+)\.\s+(?:\*\*)?([A-Z][^*\t]*?)(?:\*\*)?(?:\t.*)?\s*$")
_CLAUSE_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)+(?![\d.])")
# A TOML string that is nothing but clause numbers ("5.1", "4.1.15, 4.2.1(a)").
_CLAUSE_LIST = re.compile(
    r"^\s*\d+(?:\.\d+)+(?:\([a-z]\))?(?:\s*,\s*\d+(?:\.\d+)+(?:\([a-z]\))?)*\s*$"
)


# ---------------------------------------------------------------- the clauses


@dataclass(frozen=True)
class RulesFile:
    """The numbered clauses of one rules file, in the file's order."""

    name: str
    sections: dict[str, str]
    clauses: dict[str, str]  # clause number -> the text of its line


def extract(path: Path) -> RulesFile:
    """The sections and numbered clauses of one rules file.

    A clause is a line that starts with a dotted number; its text is that line
    (continuation lines such as the Table of Play's rows belong to it but are
    not needed to name it).  A section's title is its last heading before its
    first clause (the table of contents comes earlier).
    """
    lines = path.read_text("utf-8").splitlines()
    clauses: dict[str, str] = {}
    headings: dict[str, str] = {}
    sections: dict[str, str] = {}
    for line in lines:
        clause = _CLAUSE_LINE.match(line)
        if clause:
            number, text = clause.groups()
            if number in clauses:
                raise ValueError(f"{path.name}: clause {number} appears twice")
            clauses[number] = _plain(text)
            section = number.split(".")[0]
            sections.setdefault(section, headings.get(section, ""))
            continue
        heading = _SECTION_LINE.match(line)
        if heading:
            headings[heading.group(1)] = _plain(heading.group(2))
    return RulesFile(path.name, sections, clauses)


def _plain(text: str) -> str:
    return " ".join(text.replace("**", "").split())


def extract_all(folder: Path) -> dict[str, RulesFile]:
    """Every rules file of ``folder`` (``NNN_*.txt``), by file name."""
    files = sorted(folder.glob("[0-9][0-9][0-9]_*.txt"))
    return {path.name: extract(path) for path in files}


def dump_clauses(files: Mapping[str, RulesFile]) -> str:
    data = {
        name: {"sections": rules.sections, "clauses": rules.clauses}
        for name, rules in sorted(files.items())
    }
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def load_clauses(path: Path = CLAUSES) -> dict[str, RulesFile]:
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return {
        name: RulesFile(name, dict(entry["sections"]), dict(entry["clauses"]))
        for name, entry in data.items()
    }


def clause_key(clause: str) -> tuple[int, ...]:
    """Sort order of clause numbers: 3.9 < 3.10 < 3.10.4.1."""
    return tuple(int(part) for part in clause.split("."))


# ------------------------------------------------------------- implementation


@dataclass(frozen=True)
class GameData:
    """What one game's TOML says about itself and cites, clause by clause."""

    id: str
    title: str
    rules_file: str
    cited: dict[str, list[str]]  # clause -> the TOML entries that cite it


def _citations(value: Any, path: str, in_clause_key: bool) -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else key
            yield from _citations(item, child, in_clause_key or key in ("clause", "clauses"))
    elif isinstance(value, list):
        for item in value:
            yield from _citations(item, path, in_clause_key)
    elif isinstance(value, str) and (in_clause_key or _CLAUSE_LIST.match(value)):
        for number in _CLAUSE_NUMBER.findall(value):
            yield number, path


def _entry_name(path: str) -> str:
    """``wagers.small_dragon.clauses`` -> ``[wagers.small_dragon]``; ``clauses.late_bet`` as is."""
    parts = path.split(".")
    if parts[-1] in ("clause", "clauses") and len(parts) > 1:
        parts = parts[:-1]
    if len(parts) > 1:
        return f"[{'.'.join(parts[:-1])}] {parts[-1]}"
    return parts[0]


def load_games(folder: Path = GAMES) -> dict[str, GameData]:
    """Every game TOML, with every entry that cites a clause number.

    Read generically: any value under a ``clause`` / ``clauses`` key or in a
    ``[clauses]`` table, and any string that is nothing but clause numbers,
    wherever it sits (new tables such as ``[grants]`` count without a change
    here).
    """
    games: dict[str, GameData] = {}
    for path in sorted(folder.glob("*.toml")):
        data = tomllib.loads(path.read_text("utf-8"))
        cited: dict[str, list[str]] = {}
        for number, where in _citations(data, "", False):
            entries = cited.setdefault(number, [])
            name = f"{path.name} {_entry_name(where)}"
            if name not in entries:
                entries.append(name)
        games[data["id"]] = GameData(data["id"], data["title"], data["rules_file"], cited)
    return games


# --------------------------------------------------------- the hand-kept file


@dataclass(frozen=True)
class Status:
    """docs/clause-status.toml for one game: clauses not applicable (with the
    reason) and implementation pointers for clauses no game data cites."""

    not_applicable: dict[str, str] = field(default_factory=dict)
    implemented: dict[str, list[str]] = field(default_factory=dict)


def load_status(path: Path = STATUS) -> dict[str, Status]:
    data = tomllib.loads(path.read_text("utf-8"))
    status: dict[str, Status] = {}
    for game_id, entry in data.items():
        pointers = {
            clause: [where] if isinstance(where, str) else list(where)
            for clause, where in entry.get("implemented", {}).items()
        }
        status[game_id] = Status(dict(entry.get("not_applicable", {})), pointers)
    return status


def pointer_problem(pointer: str, root: Path = ROOT) -> str | None:
    """Why ``path:name`` (``name`` a function, class, method ``Class.name`` or
    module-level assignment of ``path``) does not resolve; None if it does."""
    file, _, name = pointer.partition(":")
    source = root / file
    if not source.is_file():
        return f"{file} does not exist"
    if not name:
        return None
    tree = ast.parse(source.read_text("utf-8"))
    scope: list[ast.stmt] = tree.body
    for part in name.split("."):
        found = _defined(scope, part)
        if found is None:
            return f"{file} defines no {name}"
        scope = found.body if isinstance(found, ast.ClassDef) else []
    return None


def _defined(body: Iterable[ast.stmt], name: str) -> ast.stmt | None:
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == name:
                return node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return node
    return None


# ---------------------------------------------------------------------- tests


def clauses_in_name(rest: str) -> list[str]:
    """The clauses a test name gives after its game prefix.

    >>> clauses_in_name("5_17_1_withdrawal_returns_only_undecided_wagers")
    ['5.17.1']
    >>> clauses_in_name("5_18_1_and_5_18_2_differential_decrease")
    ['5.18.1', '5.18.2']
    >>> clauses_in_name("4_1_3_to_4_1_6_each_layout")
    ['4.1.3', '4.1.4', '4.1.5', '4.1.6']
    >>> clauses_in_name("every_wager_has_a_case")
    []
    """
    tokens = rest.split("_")
    clauses: list[str] = []
    joiner = ""
    i = 0
    while i < len(tokens) and tokens[i].isdigit():
        start = i
        while i < len(tokens) and tokens[i].isdigit():
            i += 1
        clause = ".".join(tokens[start:i])
        if joiner == "to" and clauses:
            clauses.extend(_siblings_between(clauses[-1], clause)[1:])
        else:
            clauses.append(clause)
        if i + 1 < len(tokens) and tokens[i] in ("and", "to") and tokens[i + 1].isdigit():
            joiner = tokens[i]
            i += 1
        else:
            break
    return clauses


def _siblings_between(first: str, last: str) -> list[str]:
    head, _, low = first.rpartition(".")
    other, _, high = last.rpartition(".")
    if head != other or int(high) < int(low):
        return [first, last]
    return [f"{head}.{n}" for n in range(int(low), int(high) + 1)]


def _marker_clauses(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[str, str]]:
    for decorator in node.decorator_list:
        if not isinstance(decorator, ast.Call):
            continue
        func = decorator.func
        if not (isinstance(func, ast.Attribute) and func.attr == "clause"):
            continue
        mark = func.value
        if not (isinstance(mark, ast.Attribute) and mark.attr == "mark"):
            continue
        args = [a.value for a in decorator.args if isinstance(a, ast.Constant)]
        if len(args) >= 2 and all(isinstance(a, str) for a in args):
            for clause in args[1:]:
                yield str(args[0]), str(clause)


def collect_tests(
    game_ids: Iterable[str], folder: Path = TESTS
) -> dict[tuple[str, str], list[str]]:
    """(game id, clause) -> the tests that name it, as ``folder/file::function``
    (the path under ``folder``)."""
    prefixes = {gid.replace("-", "_"): gid for gid in game_ids}
    found: dict[tuple[str, str], list[str]] = {}
    # tests/security/ is the security review's suite: its tests are listed by
    # finding in docs/security.md, not here.
    paths = (p for p in folder.rglob("test_*.py") if "security" not in p.relative_to(folder).parts)
    for path in sorted(paths):
        tree = ast.parse(path.read_text("utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if not node.name.startswith("test_"):
                continue
            test = f"{path.relative_to(folder).as_posix()}::{node.name}"
            pairs = list(_marker_clauses(node))
            for prefix, gid in prefixes.items():
                if node.name.startswith(f"test_{prefix}_"):
                    rest = node.name[len(prefix) + 6 :]
                    # A bare section number ("test_dragon_tiger_4_pay_tables") names no clause.
                    pairs.extend((gid, c) for c in clauses_in_name(rest) if "." in c)
            for pair in pairs:
                tests = found.setdefault(pair, [])
                if test not in tests:
                    tests.append(test)
    return found


# ---------------------------------------------------------------------- table


@dataclass(frozen=True)
class Row:
    game: str
    clause: str
    text: str
    status: str
    implementation: list[str]
    tests: list[str]
    reason: str = ""

    @property
    def strict(self) -> bool:
        return self.clause.split(".")[0] in STRICT_SECTIONS


@dataclass(frozen=True)
class Coverage:
    games: dict[str, GameData]
    rules: dict[str, RulesFile]
    rows: dict[str, list[Row]]  # game id -> rows in clause order
    problems: list[str]  # things the inputs get wrong, for the CI test


def build(
    rules: Mapping[str, RulesFile] | None = None,
    games: Mapping[str, GameData] | None = None,
    status: Mapping[str, Status] | None = None,
    tests: Mapping[tuple[str, str], list[str]] | None = None,
    root: Path = ROOT,
) -> Coverage:
    rules = dict(rules if rules is not None else load_clauses())
    games = dict(games if games is not None else load_games())
    status = dict(status if status is not None else load_status())
    tests = dict(tests if tests is not None else collect_tests(games))
    problems: list[str] = []
    rows: dict[str, list[Row]] = {}
    for gid in sorted(games, key=lambda g: games[g].rules_file):
        game = games[gid]
        if game.rules_file not in rules:
            problems.append(f"{gid}: rules file {game.rules_file} is not in docs/clauses.json")
            continue
        clauses = rules[game.rules_file].clauses
        own = status.get(gid, Status())
        for source, numbers in (
            ("cited by the game TOML", game.cited),
            ("not_applicable in docs/clause-status.toml", own.not_applicable),
            ("implemented in docs/clause-status.toml", own.implemented),
        ):
            problems.extend(
                f"{gid}: clause {n} is {source} but is not in {game.rules_file}"
                for n in sorted(numbers, key=clause_key)
                if n not in clauses
            )
        for n in sorted(set(own.not_applicable) & (set(own.implemented) | set(game.cited))):
            problems.append(f"{gid}: clause {n} is marked not applicable but has implementation")
        for n, pointers in sorted(own.implemented.items()):
            for pointer in pointers:
                problem = pointer_problem(pointer, root)
                if problem:
                    problems.append(f"{gid} {n}: pointer {pointer}: {problem}")
        for (tgid, n), names in sorted(tests.items()):
            if tgid == gid and n not in clauses:
                problems.append(f"{gid}: {', '.join(names)} names clause {n}, not in the rules")
        game_rows = []
        for n in sorted(clauses, key=clause_key):
            implementation = list(game.cited.get(n, [])) + list(own.implemented.get(n, []))
            named = sorted(tests.get((gid, n), []))
            if n in own.not_applicable:
                state, reason = NOT_APPLICABLE, own.not_applicable[n]
            elif implementation and named:
                state, reason = TESTED, ""
            elif implementation:
                state, reason = UNTESTED, ""
            elif named:
                state, reason = UNLINKED, ""
            else:
                state, reason = MISSING, ""
            game_rows.append(Row(gid, n, clauses[n], state, implementation, named, reason))
        rows[gid] = _lead_ins(game_rows)
    return Coverage(games, rules, rows, problems)


def is_lead_in(text: str) -> bool:
    """A clause that introduces its sub-clauses ("as follows:", "Method A:")
    or is only a heading ("Insurance Bet"), as opposed to one with a rule of
    its own ("... shall be void.")."""
    return text.endswith(":") or not text.endswith((".", ";", ","))


def _lead_ins(rows: list[Row]) -> list[Row]:
    """A lead-in or heading with no test of its own is as covered as its
    sub-clauses: tested when each is tested or not applicable (one at least
    tested), not applicable when all are.  Deepest first, so that 5.8.2
    (itself a lead-in) is settled before 5.8."""
    by_clause = {row.clause: row for row in rows}
    for row in sorted(rows, key=lambda r: -r.clause.count(".")):
        current = by_clause[row.clause]
        if current.status in (TESTED, NOT_APPLICABLE) or not is_lead_in(current.text):
            continue
        children = [by_clause[c] for c in by_clause if c.rpartition(".")[0] == row.clause]
        states = {child.status for child in children}
        if not children or not states <= {TESTED, NOT_APPLICABLE}:
            continue
        subs = ", ".join(child.clause for child in children)
        if TESTED in states:
            by_clause[row.clause] = Row(
                row.game,
                row.clause,
                row.text,
                TESTED,
                [*current.implementation, f"lead-in: by {subs}"],
                current.tests,
            )
        else:
            by_clause[row.clause] = Row(
                row.game,
                row.clause,
                row.text,
                NOT_APPLICABLE,
                current.implementation,
                current.tests,
                f"lead-in to {subs}, all not applicable",
            )
    return [by_clause[row.clause] for row in rows]


def failing(coverage: Coverage) -> set[tuple[str, str]]:
    """Clauses of sections 3-6 neither tested nor not applicable."""
    return {
        (row.game, row.clause)
        for game_rows in coverage.rows.values()
        for row in game_rows
        if row.strict and row.status not in (TESTED, NOT_APPLICABLE)
    }


_EXPLAIN = {
    TESTED: "implemented (game data or a pointer) and named by at least one test",
    NOT_APPLICABLE: "no behaviour a program can have (physical handling, equipment, "
    "announcement, vocabulary); the reason is given",
    UNTESTED: "implemented, but no test names the clause",
    UNLINKED: "a test names the clause, but neither the game data nor "
    "docs/clause-status.toml points to its implementation",
    MISSING: "neither implementation evidence nor a test",
}


def _summary(text: str, width: int = 110) -> str:
    text = text.replace("|", "\\|")
    if len(text) <= width:
        return text
    return text[:width].rsplit(" ", 1)[0] + " …"


def _counts(rows: Iterable[Row]) -> dict[str, int]:
    counts = dict.fromkeys(STATUSES, 0)
    for row in rows:
        counts[row.status] += 1
    return counts


def render(coverage: Coverage) -> str:
    out: list[str] = [
        "# Clause coverage",
        "",
        "Generated by `python scripts/clause_coverage.py` from `docs/clauses.json` (the numbered",
        "clauses of `../shared/rules/`), the game data (`src/punto/rules/games/*.toml`), the hand-kept",
        "`docs/clause-status.toml` and the test names in `tests/`; do not edit by hand.",
        "`tests/project/test_clause_coverage.py` regenerates it and fails if this file differs, and fails",
        "when a clause of sections 3-6 is neither tested nor not applicable, beyond the committed",
        "list of open clauses.",
        "",
        "A test counts for a clause when its name is `test_<game_id>_<clause>_<what>` (e.g.",
        "`test_dragon_tiger_5_11_1_...` is Dragon Tiger 5.11.1, not 5.11), chains clauses with",
        "`_and_` or gives a range of sibling clauses with `_to_`, or when it carries",
        '`@pytest.mark.clause("<game-id>", "<clause>", ...)`.',
        "",
        "Statuses:",
        "",
    ]
    out += [f"- **{state}** — {_EXPLAIN[state]}" for state in STATUSES]
    out += ["", "## Counts", ""]
    header = "| game | rules file | clauses | " + " | ".join(STATUSES) + " |"
    out += [header, "|---|---|---:|" + "---:|" * len(STATUSES)]
    for scope, keep in (("all sections", False), ("sections 3–6", True)):
        total: list[Row] = []
        for gid, game_rows in coverage.rows.items():
            chosen = [r for r in game_rows if r.strict or not keep]
            total += chosen
            counts = _counts(chosen)
            game = coverage.games[gid]
            cells = " | ".join(str(counts[s]) for s in STATUSES)
            out.append(f"| {game.title} ({scope}) | {game.rules_file} | {len(chosen)} | {cells} |")
        counts = _counts(total)
        cells = " | ".join(f"**{counts[s]}**" for s in STATUSES)
        out.append(f"| **all games ({scope})** | | **{len(total)}** | {cells} |")
    open_rows = [
        row
        for game_rows in coverage.rows.values()
        for row in game_rows
        if row.strict and row.status not in (TESTED, NOT_APPLICABLE)
    ]
    out += ["", "## Open in sections 3–6", ""]
    if open_rows:
        out += [f"- {row.game} {row.clause} — {row.status}" for row in open_rows]
    else:
        out.append("None: every clause of sections 3–6 is tested or not applicable.")
    for gid, game_rows in coverage.rows.items():
        game = coverage.games[gid]
        sections = coverage.rules[game.rules_file].sections
        out += ["", f"## {game.title} (`{gid}`, {game.rules_file})"]
        section = ""
        for row in game_rows:
            head = row.clause.split(".")[0]
            if head != section:
                section = head
                out += [
                    "",
                    f"### {head}. {sections.get(head, '')}".rstrip(),
                    "",
                    "| clause | text | status | implementation | tests |",
                    "|---|---|---|---|---|",
                ]
            status = row.status if not row.reason else f"{row.status}: {row.reason}"
            implementation = "<br>".join(f"`{i}`" for i in row.implementation) or "—"
            named = "<br>".join(f"`{t}`" for t in row.tests) or "—"
            out.append(
                f"| {row.clause} | {_summary(row.text)} | {status} | {implementation} | {named} |"
            )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="fail if the committed table is stale")
    parser.add_argument(
        "--extract", type=Path, metavar="RULES", help="rewrite docs/clauses.json from this folder"
    )
    args = parser.parse_args(argv)
    if args.extract:
        CLAUSES.write_text(dump_clauses(extract_all(args.extract)), "utf-8")
        print(f"wrote {CLAUSES.relative_to(ROOT)}")
    coverage = build()
    for problem in coverage.problems:
        print(f"problem: {problem}", file=sys.stderr)
    text = render(coverage)
    if args.check:
        if OUTPUT.read_text("utf-8") != text:
            print(
                "docs/clause-coverage.md is stale: run `python scripts/clause_coverage.py` and commit"
            )
            return 1
        return 0
    OUTPUT.write_text(text, "utf-8")
    print(
        f"wrote {OUTPUT.relative_to(ROOT)}; {len(failing(coverage))} clauses of sections 3-6 open"
    )
    return 1 if coverage.problems else 0


if __name__ == "__main__":
    sys.exit(main())
