import subprocess
import sys

import cranfield


def test_version_matches_cli():
    out = subprocess.run([sys.executable, "-m", "cranfield", "--version"], capture_output=True, text=True, check=True)
    assert cranfield.__version__ in out.stdout


def test_import_is_light():
    code = "import sys, cranfield; heavy = [m for m in ('pyarrow', 'pandas', 'scipy', 'matplotlib', 'rich') if m in sys.modules]; print(heavy)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# DESIGN 13: the layers, bottom to top; a module may import its own layer and those below it.
# The package's __init__ (lazy re-exports of every layer) and _boundary (which guards the public
# functions of every layer) are the façade, outside the layers.
LAYERS = {
    "errors": 0, "io": 0, "_arrow": 0, "_threads": 0, "_lazy": 0, "_version": 0, "data": 0,
    "measures": 1,
    "retrieval": 2, "classification": 2, "correlation": 2,
    "stats": 3,
    "protocols": 4, "judgments": 4, "online": 4, "fusion": 4, "rag": 4, "dask": 4, "datasets": 4, "pyterrier": 4,
    "report": 5, "plots": 5, "judge": 5,
    "cli": 6, "__main__": 6,
}
FACADE = ("__init__", "_boundary")


def _imported_modules(path, root):
    """Every ``cranfield.…`` module named by an import in ``path`` (top level or inside a function)."""
    import ast

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            absolute = node.module or ""
            if node.level:  # relative: resolve against the module's package
                package = list(path.relative_to(root).parent.parts)
                base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                absolute = ".".join(["cranfield", *base, *([node.module] if node.module else [])])
            names = [absolute] if absolute != "cranfield" else [f"cranfield.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            if name.startswith("cranfield."):
                yield node.lineno, name.split(".")[1]


def test_layers_import_downward():
    """Layers import downward only (DESIGN 13): no module imports one of a higher layer, at the
    top of the file or inside a function (lazy imports count too)."""
    from pathlib import Path

    import cranfield

    root = Path(cranfield.__file__).parent
    offenders, unplaced = [], set()
    for path in root.rglob("*.py"):
        top = path.relative_to(root).parts[0].removesuffix(".py")
        if top in FACADE:
            continue
        if top not in LAYERS:
            unplaced.add(top)
            continue
        for line, target in _imported_modules(path, root):
            if target in LAYERS and LAYERS[target] > LAYERS[top]:
                offenders.append(f"{path.relative_to(root)}:{line} imports cranfield.{target}")
            elif target not in LAYERS and target not in FACADE:
                unplaced.add(target)
    assert unplaced == set(), f"place these in LAYERS: {sorted(unplaced)}"
    assert offenders == []
