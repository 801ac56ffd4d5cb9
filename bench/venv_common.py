"""The benchmarks' Python environment: bench/.venv with numpy and scikit-learn (plain stdlib here,
so it runs before they are installed)."""

import os
import subprocess
import sys
from pathlib import Path

VENV = Path(__file__).resolve().parent / ".venv"


def ensure_venv(script):
    """Re-run `script` inside bench/.venv (creating it, with numpy + scikit-learn, if needed)."""
    vpy = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    if not vpy.exists():
        print(f"creating {VENV} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    ok = subprocess.run([str(vpy), "-c", "import numpy, sklearn"], capture_output=True).returncode == 0
    if not ok:
        subprocess.run([str(vpy), "-m", "pip", "install", "-q", "numpy", "scikit-learn"], check=True)
    os.execv(str(vpy), [str(vpy), str(Path(script).resolve()), *sys.argv[1:]])
