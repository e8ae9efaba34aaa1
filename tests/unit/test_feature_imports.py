"""Features import each other in one direction only, no module is in an import circle, and every cog package
has the same shape (HACKING.md).

Every import in bot/ and cogs/ is read from the source: at module level, inside functions and under
TYPE_CHECKING alike. A module belongs to a feature package (``cogs/<feature>/`` or
``bot/services/<feature>/``, each its own node); an import through the core (bot/*.py, db/) counts as the
features that module imports. The graph must have no cycle, so a feature that needs something from one
above it offers a registry instead (e.g. cogs/sessions/buttons.py's announcement_buttons). Between modules (bot/,
cogs/, db/, standin/; any import) there is no circle either: a back-reference becomes a protocol, a
registry or a parameter.
"""

from __future__ import annotations

import ast
from collections import defaultdict, deque
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

Graph = dict[str, dict[str, list[str]]]  # feature -> feature it imports -> where (file:line)


def module_name(root: Path, path: Path) -> str:
    """``cogs/series/_cog.py`` → ``cogs.series._cog``; a package's ``__init__`` is the package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def feature_of(module: str) -> str | None:
    """``cogs.<f>`` or ``services.<f>`` for a module of a feature package; None for the core."""
    parts = module.split(".")
    if parts[0] == "cogs" and len(parts) > 1:
        return f"cogs.{parts[1]}"
    if parts[:2] == ["bot", "services"] and len(parts) > 2:
        return f"services.{parts[2]}"
    return None


def imports_of(root: Path, path: Path, modules: set[str]) -> list[tuple[str, int]]:
    """Every module of ours that ``path`` imports, anywhere in it, with the line."""
    name = module_name(root, path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        for target in targets:
            # `import a.b.c` also imports a and a.b: the longest of ours is what it names
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target:
                found.append((target, node.lineno))
    return found


def feature_graph(root: Path) -> Graph:
    """Which feature imports which, directly or through the core."""
    paths = {
        module_name(root, path): path
        for top in ("bot", "cogs", "db")
        for path in sorted((root / top).rglob("*.py"))
    }
    modules = set(paths)
    edges = {name: imports_of(root, path, modules) for name, path in paths.items()}
    graph: Graph = defaultdict(lambda: defaultdict(list))
    for name, path in paths.items():
        source = feature_of(name)
        if source is None:
            continue
        seen: set[str] = set()
        # breadth first: a direct import is reported before a path through the core
        queue = deque((target, f"{path.relative_to(root)}:{line}") for target, line in edges[name])
        while queue:
            target, where = queue.popleft()
            if target in seen:
                continue
            seen.add(target)
            reached = feature_of(target)
            if reached is None:  # the core: what it imports counts too
                queue.extend((t, f"{where} (via {target})") for t, _ in edges[target])
            elif reached != source:
                graph[source][reached].append(where)
    return graph


def cycles(graph: Graph) -> list[list[str]]:
    """The graph's strongly connected components of more than one feature (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph.get(node, {}):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def describe(graph: Graph, component: list[str]) -> str:
    """The imports that make the cycle, a few places each."""
    return "\n".join(
        f"{a} -> {b}: {', '.join(graph[a][b][:3])}" for a in component for b in graph[a] if b in component
    )


def test_no_feature_imports_another_in_a_circle() -> None:
    graph = feature_graph(ROOT)
    assert {"cogs.sessions", "cogs.series", "services.sessions", "services.series"} <= set(graph)
    found = cycles(graph)
    assert not found, "\n\n".join(describe(graph, component) for component in found)


def test_the_layers_point_down() -> None:
    """Services never import a cog; guild config imports no feature; sessions know nothing of series,
    calendars, the site or setup (they extend sessions, not the other way round)."""
    graph = feature_graph(ROOT)
    upward = sorted(
        f"{feature} -> {target}"
        for feature, targets in graph.items()
        for target in targets
        if feature.startswith("services.") and target.startswith("cogs.")
    )
    assert upward == []
    assert sorted(graph.get("services.config", {})) == []
    for layer in ("cogs", "services"):
        above = {f"{layer}.{name}" for name in ("series", "calendars", "site", "setup", "programme")}
        assert sorted(set(graph.get(f"{layer}.sessions", {})) & above) == []


@pytest.mark.parametrize("deferred", ["function", "type_checking", "module"])
def test_a_circle_is_found_however_it_is_imported(tmp_path: Path, deferred: str) -> None:
    """The check itself: a cycle held by a deferred import is a cycle, and the core is seen through."""
    back = {
        "function": "def later():\n    from cogs.a._cog import A\n",
        "type_checking": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from cogs.a import _cog\n",
        "module": "from cogs.a._cog import A\n",
    }[deferred]
    files = {
        "cogs/__init__.py": "",
        "cogs/a/__init__.py": "",
        "cogs/a/_cog.py": "from cogs.b.things import thing\nclass A: ...\n",
        "cogs/b/__init__.py": "",
        "cogs/b/things.py": back + "thing = 1\n",
        "bot/__init__.py": "",
        "bot/helpers.py": "from cogs.a import _cog\n",
        "bot/services/__init__.py": "",
        "bot/services/c/__init__.py": "",
        "bot/services/c/store.py": "import bot.helpers\n",
        "db/__init__.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = feature_graph(tmp_path)
    assert cycles(graph) == [["cogs.a", "cogs.b"]]
    assert set(graph["services.c"]) == {"cogs.a"}  # through bot/helpers.py


# ---------------------------------------------------------------- no circle between modules

PACKAGES = ("bot", "cogs", "db", "standin")
# Circles still inside these packages, being removed as their flows move into the features' services:
# delete a package here once its circle is gone (the test says so).
KNOWN_CIRCLES: set[str] = set()


def module_graph(root: Path) -> Graph:
    """Which module imports which (any import; ``from pkg import sub`` names the submodule, not ``pkg``)."""
    paths = {
        module_name(root, path): path
        for top in PACKAGES
        if (root / top).is_dir()
        for path in sorted((root / top).rglob("*.py"))
        if "migrations" not in path.parts
    }
    modules = set(paths)

    def ours(name: str) -> str:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph: Graph = defaultdict(lambda: defaultdict(list))
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [ours(alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else ours(base)
                    for alias in node.names
                ]
            else:
                continue
            for target in targets:
                if target and target != name:
                    graph[name][target].append(f"{path.relative_to(root)}:{node.lineno}")
    return graph


def test_no_module_imports_another_in_a_circle() -> None:
    graph = module_graph(ROOT)
    assert {"bot.client", "db.models.sessions", "standin.server"} <= set(graph)
    found = cycles(graph)
    known = {
        package
        for component in found
        for package in KNOWN_CIRCLES
        if all(module.startswith(f"{package}.") for module in component)
    }
    unknown = [
        component for component in found if not any(c.startswith(f"{p}.") for p in known for c in component)
    ]
    assert not unknown, "\n\n".join(describe(graph, component) for component in unknown)
    assert KNOWN_CIRCLES - known == set(), "no circle left there: delete it from KNOWN_CIRCLES"


@pytest.mark.parametrize("deferred", ["function", "type_checking", "module"])
def test_a_module_circle_is_found_however_it_is_imported(tmp_path: Path, deferred: str) -> None:
    """The check itself: a type-only or deferred back-reference inside a package is a circle; importing a
    sibling through its package (``from bot import b``) names the sibling."""
    back = {
        "function": "def later():\n    from bot.a import A\n",
        "type_checking": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bot.a import A\n",
        "module": "from bot.a import A\n",
    }[deferred]
    files = {"bot/__init__.py": "", "bot/a.py": "from bot import b\nclass A: ...\n", "bot/b.py": back}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert cycles(module_graph(tmp_path)) == [["bot.a", "bot.b"]]


# ---------------------------------------------------------------- the cogs' shape


def _cog_classes(tree: ast.Module) -> list[str]:
    def is_cog(base: ast.expr) -> bool:
        return isinstance(base, ast.Attribute) and base.attr in {"Cog", "GroupCog"}

    return [n.name for n in tree.body if isinstance(n, ast.ClassDef) and any(map(is_cog, n.bases))]


def _imported_names(path: Path) -> set[str]:
    """The modules ``path`` names in its imports, anywhere in it (``from x import y``: x and x.y)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_every_cog_package_has_one_shape() -> None:
    """``__init__`` holds only ``setup``; the feature's one cog, ``<Feature>Cog``, is in ``_cog.py``."""
    packages = sorted(p.parent for p in (ROOT / "cogs").glob("*/__init__.py"))
    assert {"sessions", "series", "suggestions"} <= {p.name for p in packages}
    for package in packages:
        init = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
        body = [n for n in init.body if not isinstance(n, ast.Import | ast.ImportFrom)]
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # the docstring
        assert [(type(n).__name__, getattr(n, "name", None)) for n in body] == [("AsyncFunctionDef", "setup")]
        cogs = {p.name: _cog_classes(ast.parse(p.read_text(encoding="utf-8"))) for p in package.glob("*.py")}
        assert cogs.pop("_cog.py", None) == [f"{package.name.capitalize()}Cog"], package.name
        assert not {name: found for name, found in cogs.items() if found}, package.name


def test_a_cog_module_is_private_unless_another_feature_uses_it() -> None:
    """Helpers are ``_``-prefixed; another feature imports only a feature's public modules (e.g.
    cogs/sessions/publish.py), and a public module is one another feature imports."""
    importers: dict[str, set[str]] = defaultdict(set)
    for path in [*(ROOT / "bot").rglob("*.py"), *(ROOT / "cogs").rglob("*.py")]:
        feature = feature_of(module_name(ROOT, path)) or "core"
        for name in _imported_names(path):
            parts = name.split(".")
            if parts[0] == "cogs" and len(parts) > 2 and f"cogs.{parts[1]}" != feature:
                importers[".".join(parts[:3])].add(str(path.relative_to(ROOT)))
    private = {name: sorted(paths) for name, paths in importers.items() if name.split(".")[2].startswith("_")}
    assert private == {}
    public = {
        f"cogs.{p.parent.name}.{p.stem}" for p in (ROOT / "cogs").glob("*/*.py") if not p.stem.startswith("_")
    }
    assert public, "no public module: the check checks nothing"
    assert sorted(name for name in public if name not in importers) == []


def test_no_cog_takes_its_bot_as_any() -> None:
    """No ``bot: Any`` (a mixin that does not say what it needs, or a setup that takes anything)."""
    loose = []
    for path in sorted((ROOT / "cogs").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            pairs: list[tuple[ast.expr | ast.arg, ast.expr | None]] = []
            if isinstance(node, ast.AnnAssign):
                pairs.append((node.target, node.annotation))
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                pairs.extend((arg, arg.annotation) for arg in node.args.args)
            for target, annotation in pairs:
                name = target.arg if isinstance(target, ast.arg) else getattr(target, "id", None)
                if name == "bot" and isinstance(annotation, ast.Name) and annotation.id == "Any":
                    loose.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert loose == []
