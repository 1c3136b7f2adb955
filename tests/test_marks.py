"""The folded blocks' kinds, as the site marks them (tools/site/marks.py): each kind of fold
gets the class book.css styles it by, and a fold of no kind gets none; a link to the engine,
and only that, becomes a download."""

import re

import markdown
import pytest

from tools.site.marks import label_folds, offer_download

# Summaries as the book writes them, and the class each fold must get.
FOLDS = [
    ("Checks", "fold-checks"), ("Checks of the four answers", "fold-checks"),
    ("Check: far above and far below zero", "fold-checks"),
    ("Solution", "fold-solution"), ("Answer", "fold-answer"),
    ("Figure 4, step by step: the table of its backward pass", "fold-steps"),
    ("The same in PyTorch", None), ("How these fences run the tools and edit the file", None),
]  # fmt: skip


@pytest.mark.parametrize(("summary", "kind"), FOLDS, ids=[s.split(":")[0] for s, _ in FOLDS])
def test_each_kind_of_fold_gets_its_class(summary, kind):
    fold = f"<summary>{summary}</summary>\n\n```python\nx = 1\n```\n"
    text = f'<details markdown="1">\n{fold}\n</details>\n'  # as a chapter writes it
    html = label_folds(markdown.markdown(text, extensions=["md_in_html", "fenced_code"]))
    marked = re.findall(r'<details class="([^"]*)">', html) or ["no kind"]
    assert marked == [kind or "no kind"], (
        f"the fold <summary>{summary}</summary> is marked {marked[0]}, not "
        f"{kind or 'no kind'}: see KINDS in tools/site/marks.py"
    )
    assert f"<summary>{summary}</summary>" in html


def test_a_link_to_either_engine_file_and_only_that_downloads_the_site_s_copy():
    text = "[get it](../micrograd.py), [or](../tensor.py)"
    rest = ", [a page](../tensor.md), [its notes](micrograd-py), [it](micrograd.pyc)"
    assert offer_download(text + rest) == (
        '<a download href="micrograd.py">get it</a>, <a download href="tensor.py">or</a>' + rest
    )
