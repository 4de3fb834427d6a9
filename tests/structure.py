"""The shape of the package, measured by a walk over its syntax trees: ``python -m tests.structure``.

docs/development.md draws the layers of club-envs; this walk keeps the drawing true. It reports

* **game names outside the registry**: string comparisons against a registered game's name
  (``== "members_only"``, ``in ("arkham_decoders", ...)``) anywhere but the game packages and
  :mod:`club_envs.games` -- every other layer asks the game's spec;
* **upward imports**: a module importing one of a higher layer (:data:`LAYERS`), imports inside
  functions included;
* **import cycles** between modules (a package importing its own submodules is not one);
* **long functions**: more than :data:`MAX_FUNCTION_LINES` lines;
* **raw config dicts**: modules with a function parameter named ``cfg`` -- the typed training
  config is read once, in one module (:data:`CONFIG_LOADER`).

``tests/test_structure.py`` asserts the limits; ``make lint`` prints the figures.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "club_envs"
MAX_FUNCTION_LINES = 120
REGISTRY = "club_envs.games"
CONFIG_LOADER = "club_envs.training.config"
GAME_PACKAGES = ("club_envs.members_only", "club_envs.arkham_decoders")
# Module prefix -> layer; the longest matching prefix decides. Imports may only point to the same
# layer or a lower one.
LAYERS = {
    # 0: the contracts every game and tool shares, and the registry, which knows the games by
    # package name only (it imports a game when first asked for it, so it imports none of them)
    "club_envs.vector_game": 0,  # the interface of the games' batched multi-agent versions
    "club_envs.errors": 0, "club_envs.limits": 0, "club_envs.stats": 0, "club_envs.study_stats": 0,
    "club_envs.game_spec": 0,
    "club_envs.games": 0, "club_envs.rendering": 0, "club_envs.records": 0, "club_envs.agents.base": 0,
    "club_envs.agents.belief_file": 0, "club_envs.search.game": 0, "club_envs.search.worlds": 0,
    "club_envs.search.ismcts": 0, "club_envs.agents.batched": 0,
    # the compile helper and random numbers the games' batched engines share
    "club_envs.compiled": 0, "club_envs.vector_rng": 0,
    # 1: the games
    "club_envs.members_only": 1, "club_envs.arkham_decoders": 1, "club_envs.members_only_v0": 1,
    "club_envs.arkham_decoders_v0": 1,
    # 2: agents by name, policies, extra inputs, line-ups, search agents, evaluation
    "club_envs.agents": 2, "club_envs.search": 2, "club_envs.evaluation": 2, "club_envs.evaluation_pools": 2,
    "club_envs.sb3": 2,  # stable-baselines3's view of the vector environments
    "club_envs.vector_evaluation": 2,  # series of games on the batched engines
    "club_envs.departures": 2,  # where an agent departs from a bot, and what that gains
    # 3: the applications
    "club_envs.store": 3, "club_envs.report": 3, "club_envs.training": 3, "club_envs.play": 3,
    "club_envs.study": 3, "club_envs.web": 3, "club_envs.cli": 3, "club_envs.__main__": 3,
}
ROOT_LAYER = 0  # ``club_envs`` itself: it registers the environment ids and imports no module of its own


@dataclass
class Figures:
    game_names: list[str] = field(default_factory=list)  # "path:line" of each comparison
    upward: list[str] = field(default_factory=list)  # "importer -> imported (layer a -> b)"
    unplaced: list[str] = field(default_factory=list)  # modules missing from LAYERS
    cycles: list[list[str]] = field(default_factory=list)
    long_functions: list[tuple[int, str]] = field(default_factory=list)  # (lines, "path:function")
    cfg_modules: list[str] = field(default_factory=list)


def layer(module: str) -> int | None:
    """The module's layer (``None``: a module the map does not place)."""
    if module == PACKAGE:
        return ROOT_LAYER
    matches = [p for p in LAYERS if module == p or module.startswith(p + ".")]
    return LAYERS[max(matches, key=len)] if matches else None


def _modules(root: Path) -> dict[str, Path]:
    found = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imported(module: str, path: Path, node: ast.AST, modules: dict[str, Path]) -> list[str]:
    """The modules an import statement reads: ``from a import b`` reads ``a.b`` when that is a
    module, else ``a`` (for its name ``b``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    assert isinstance(node, ast.ImportFrom)
    if node.level:
        base = module.split(".")
        keep = len(base) - node.level + (1 if path.name == "__init__.py" else 0)
        target = ".".join(base[:keep] + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    return [f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target for a in node.names]


def _game_name_pattern(names: list[str]) -> re.Pattern:
    quoted = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"""(==|!=|\bin\b)\s*[(\[{{]?\s*["']({quoted})["']|["']({quoted})["']\s*(==|!=)""")


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    # Deep enough for the module graph, and put back after: other tests in the same process rely on
    # the interpreter's usual limit (a body nested too deeply must still be refused).
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return found


def measure(root: Path = ROOT, game_names: list[str] | None = None) -> Figures:
    if game_names is None:
        from club_envs.games import specs

        game_names = sorted({n for s in specs() for n in s.names})
    pattern = _game_name_pattern(game_names)
    modules = _modules(root)
    graph: dict[str, set[str]] = defaultdict(set)
    figures = Figures()
    for module, path in modules.items():
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        relative = path.relative_to(root).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _imported(module, path, node, modules):
                    if target in modules and target != module:
                        graph[module].add(target)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                figures.long_functions.append((node.end_lineno - node.lineno + 1, f"{relative}:{node.name}"))
                arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                if any(a.arg == "cfg" for a in arguments) and module not in figures.cfg_modules:
                    figures.cfg_modules.append(module)
        if not module.startswith(GAME_PACKAGES) and module != REGISTRY:
            for number, line in enumerate(source.splitlines(), 1):
                if pattern.search(line):
                    figures.game_names.append(f"{relative}:{number}")
    figures.unplaced = [m for m in modules if layer(m) is None]
    for module in list(graph):
        for target in graph[module]:
            if None not in (layer(module), layer(target)) and layer(target) > layer(module):
                figures.upward.append(f"{module} -> {target} (layer {layer(module)} -> {layer(target)})")
    components = _strongly_connected({m: graph[m] for m in modules})
    figures.cycles = [c for c in components if not all(m == c[0] or m.startswith(c[0] + ".") for m in c)]
    figures.long_functions = sorted((f for f in figures.long_functions if f[0] > MAX_FUNCTION_LINES), reverse=True)
    figures.upward.sort()
    return figures


def main() -> int:
    figures = measure()
    for where in figures.game_names:
        print(f"game name compared outside the registry: {where}")
    for arrow in figures.upward:
        print(f"upward import: {arrow}")
    for module in figures.unplaced:
        print(f"module missing from the layer map (tests/structure.py LAYERS): {module}")
    for cycle in figures.cycles:
        print("import cycle: " + " <-> ".join(cycle))
    for lines, where in figures.long_functions:
        print(f"function longer than {MAX_FUNCTION_LINES} lines: {where} ({lines})")
    extra = [m for m in figures.cfg_modules if m != CONFIG_LOADER]
    for module in extra:
        print(f"raw config dict taken below the loader: {module}")
    bad = figures.game_names or figures.upward or figures.unplaced or figures.cycles or figures.long_functions or extra
    print(f"{len(figures.game_names)} game-name comparisons outside the registry, {len(figures.upward)} upward "
          f"imports, {len(figures.cycles)} import cycles, {len(figures.long_functions)} functions over "
          f"{MAX_FUNCTION_LINES} lines, {len(extra)} modules below the config loader taking a raw dict")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
