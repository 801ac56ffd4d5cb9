"""The README's Python example runs as printed and prints what it shows."""

import contextlib
import io
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_readme_example(tmp_path, monkeypatch):
    text = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- readme-python-example -->\n```python\n(.*?)```", text, re.S).group(1)
    expected = [line[2:] for line in block.splitlines() if line.startswith("# ")]
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {})
    assert out.getvalue().splitlines() == expected
    assert (tmp_path / "genes.parquet").is_file()
