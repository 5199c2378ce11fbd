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


def test_no_module_imports_the_command_line():
    """Layers import downward only (DESIGN 13): the CLI sits on top, so no module outside
    cranfield.cli imports it (readers, reports and plots are what the commands call)."""
    import ast
    from pathlib import Path

    import cranfield

    root = Path(cranfield.__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        if path.relative_to(root).parts[0] in ("cli", "__main__.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                absolute = node.module or ""
                if node.level:  # relative: resolve against the module's package
                    package = list(path.relative_to(root).parent.parts)
                    base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                    absolute = ".".join(["cranfield", *base, *([node.module] if node.module else [])])
                names = [absolute]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            if any(name == "cranfield.cli" or name.startswith("cranfield.cli.") for name in names):
                offenders.append(f"{path.relative_to(root)}:{node.lineno}")
    assert offenders == []
