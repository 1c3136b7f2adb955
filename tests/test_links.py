"""Every link in the book is well formed, and every link within it arrives.

A link to another site must be an https URL with a host name and no spaces; it is never
fetched (the tests run offline, and so may the reader). A link within the repository
(a chapter, a figure, ``../micrograd.py``) must name a file that exists, and an anchor
(``#...``) must be the id of a heading in the chapter it points into, as the site makes
it: the anchors come from the chapter model (tools/chapter.py), as every tool's do. The
links are the ones CommonMark reads (links, autolinks and images, by markdown-it, through
the chapter model); the chapters hold no raw HTML links.
"""

from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tools import ROOT
from tools.chapter import Chapter, chapters

DOCS = ROOT / "docs"
PAGES = chapters(DOCS)


def links(chapter: Chapter) -> list[tuple[int, str]]:
    """Each link and image target in the chapter, with the line it is written on."""
    found = []
    for token in chapter.tokens:
        if token.type != "inline" or not token.map:
            continue
        block = chapter.lines[token.map[0] : token.map[1]]
        for child in token.children or []:
            if child.type == "link_open":
                target = child.attrs["href"]
            elif child.type == "image":
                target = child.attrs["src"]
            else:
                continue
            raw = unquote(target)
            at = next((i for i, text in enumerate(block) if raw in unquote(text)), 0)
            found.append((token.map[0] + 1 + at, target))
    return found


def anchors(page: Path) -> set[str]:
    return {heading.anchor for heading in Chapter.read(page).headings}


def broken_links(page: Path, text: str | None = None) -> list[str]:
    """What is wrong with the links of ``page`` (or of ``text`` read as that page)."""
    name = page.relative_to(ROOT).as_posix()
    found = []
    for line, target in links(Chapter.read(page, text)):
        where = f"{name}:{line}: the link {target!r}"
        url = urlsplit(target)
        if url.scheme or url.netloc or target.startswith("//"):
            host = url.hostname or ""
            if url.scheme != "https" or "." not in host or any(c.isspace() for c in target):
                found.append(
                    f"{where} is not a well-formed link to another site: write it as "
                    "https://host/path (https, a host name, no spaces)."
                )
            continue
        path = unquote(url.path)
        into = (page.parent / path).resolve() if path else page
        if ROOT not in into.parents or not into.exists():
            found.append(
                f"{where} points to {path!r}, which is not a file of the repository (from "
                f"{page.parent.relative_to(ROOT).as_posix()}/). Fix the path."
            )
            continue
        fragment = unquote(url.fragment)
        if not fragment:
            continue
        if into.suffix != ".md":
            found.append(f"{where} has an anchor into {path!r}, which is not a chapter.")
        elif fragment not in anchors(into):
            nearby = ", ".join(sorted(anchors(into), key=lambda a: (a[:1] != fragment[:1], a))[:4])
            found.append(
                f"{where} points to #{fragment}, but {into.relative_to(ROOT).as_posix()} has "
                f"no heading with that anchor (some it has: {nearby}). Use a heading's anchor "
                "as the site shows it (the link icon beside the heading)."
            )
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_link_is_well_formed_and_every_link_within_the_book_arrives(page):
    found = broken_links(page)
    assert not found, "\n".join(found)


def test_the_book_links_within_itself_by_anchor_and_to_other_sites():
    every = [target for page in PAGES for _, target in links(Chapter.read(page))]
    assert any("#" in t and not urlsplit(t).scheme for t in every), "no anchor is checked"
    assert any(urlsplit(t).scheme == "https" for t in every), "no link to another site"


SOURCES = DOCS / "bibliography.md"
GOOD = "[chapter 13](13-forward-and-reverse-mode.md#two-products-with-the-jacobian)"
BAD_LINKS = [
    ("a missing anchor", GOOD.replace("#two-products", "#three-products"), "no heading"),
    ("a missing chapter", GOOD.replace("13-forward", "13-backward"), "not a file"),
    ("an anchor into a figure", "[f](figures/02-neuron.svg#top)", "not a chapter"),
    ("outside the repository", "[x](../../etc/passwd)", "not a file"),
    ("http, not https", "[x](http://example.org/)", "not a well-formed"),
    ("no host", "[x](https:///path)", "not a well-formed"),
    ("a host without a dot", "[x](https://localhost/x)", "not a well-formed"),
]


@pytest.mark.parametrize(
    ("link", "said"), [c[1:] for c in BAD_LINKS], ids=[c[0] for c in BAD_LINKS]
)
def test_a_broken_link_is_named_with_its_chapter_and_line(link, said):
    text = SOURCES.read_text(encoding="utf-8")
    assert GOOD in text, f"docs/bibliography.md no longer links {GOOD}: update this test"
    assert link != GOOD, "the planted link is the good one: update BAD_LINKS"
    lines = text.splitlines()
    planted = "\n".join([*lines[:2], f"See {link} here.", *lines[2:]]) + "\n"
    found = broken_links(SOURCES, planted)
    assert len(found) == 1, found
    assert found[0].startswith("docs/bibliography.md:3: the link ") and said in found[0], found
