"""docs/python.md's complete program, run as printed there (the code block after its
"<!-- python example -->" marker)."""

import os
import re

DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")


def test_docs_example_runs():
    with open(DOCS) as f:
        text = f.read()
    match = re.search(r"<!-- python example -->\n```python\n(.*?)```", text, re.S)
    assert match, "docs/python.md: no example after <!-- python example -->"
    exec(compile(match.group(1), "docs/python.md", "exec"), {"__name__": "docs_example"})
