"""The user guide's Python example (docs/guide/python.md) runs as printed and prints what it shows."""

import contextlib
import io
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_readme_example(tmp_path, monkeypatch):
    text = (ROOT / "docs" / "guide" / "python.md").read_text()
    block = re.search(r"<!-- readme-python-example -->\n```python\n(.*?)```", text, re.S).group(1)
    expected = [line[2:] for line in block.splitlines() if line.startswith("# ")]
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {})
    assert out.getvalue().splitlines() == expected
    assert (tmp_path / "genes.parquet").is_file()


def test_the_readme_python_lines(tmp_path, monkeypatch):
    """README.md's short example: the labels it computes are a partition of iris into 3."""
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "README.md has a Python example"
    monkeypatch.chdir(tmp_path)
    scope = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), scope)
    assert sorted(set(scope["labels"].tolist())) == [0, 1, 2]
    assert len(scope["labels"]) == 150
