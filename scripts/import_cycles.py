"""List the import cycles among punto's modules (the strongly connected components).

Run as ``PYTHONPATH=src python scripts/import_cycles.py [PREFIX]``; PREFIX
(e.g. ``punto.table``) keeps only the cycles that touch it.  Uses grimp, the
graph import-linter checks, so what this shows is what the contracts see.
"""

from __future__ import annotations

import sys

import grimp


def _components(graph: grimp.ImportGraph) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module."""
    modules = sorted(graph.modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    sys.setrecursionlimit(10_000)

    def visit(module: str) -> None:
        nonlocal counter
        index[module] = low[module] = counter
        counter += 1
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in modules:
        if module not in index:
            visit(module)
    return found


def main() -> int:
    prefix = sys.argv[1] if len(sys.argv) > 1 else "punto"
    graph = grimp.build_graph("punto", cache_dir=None)
    cycles = [c for c in _components(graph) if any(m.startswith(prefix) for m in c)]
    for component in cycles:
        print(f"cycle of {len(component)}:")
        members = set(component)
        for module in component:
            inside = sorted(graph.find_modules_directly_imported_by(module) & members)
            print(f"  {module} -> {', '.join(inside)}")
    return 1 if cycles else 0


if __name__ == "__main__":
    raise SystemExit(main())
