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
