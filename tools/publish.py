"""The book to take away: the site in site/, the whole book as a PDF, both as one archive.

    python3 tools/dev.py build              the site into site/ (open site/index.html)
    python3 tools/dev.py build --archive    the same, the PDF into it, and the folder zipped
                                            as the-literate-micrograd.zip, to read offline
    python3 tools/dev.py pdf                the site, then site/the-literate-micrograd.pdf

The site is built as the tests build it (``mkdocs build --strict``). The PDF is the site's
whole-book page (print_page.html, from tools/site/prepare.py) printed by headless Chromium
from disk: MathML, the math font and the figures as on screen, an outline of the chapters
and their sections (``--generate-pdf-document-outline``), and the print styles of
docs/stylesheets/print.css (each chapter on a new page, no Run bars or step controls,
headings kept with what follows, the page's number in the text's font, not the browser's
header and footer), every fold (checks, solutions, answers, tables of steps) open:
Material's script opens them for print, and starts from disk too (tools/site/theme/main.html).
Chromium is Debian's ``chromium`` (or Chrome, where that is installed).

Each command names its steps as it starts them, and ends with whatever the site goes without
(no npm: no Run buttons, and no search from disk) and what to install to have it.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from tools import ROOT, relative
from tools.site.runtime import LESSER

SITE = ROOT / "site"
PDF = "the-literate-micrograd.pdf"  # in the site folder, so the archive and Pages carry it
ARCHIVE = ROOT / "the-literate-micrograd.zip"
PRINT_PAGE = "print_page.html"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Chromium that prints and nothing else (no first-run pages, updates or sync), with an outline;
# the margins are the print styles' (print.css's @page), as when a reader prints the page.
PRINTING = [
    "--headless", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--generate-pdf-document-outline",
]  # fmt: skip


class PublishError(Exception):
    """Something the book needs could not be made; the message says what to do."""


def build(site: Path = SITE) -> list[str]:
    """``mkdocs build --strict`` into ``site``: what the site goes without, each reason saying
    what to install (``lesser``); PublishError with mkdocs's last lines if it did not build."""
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    env.pop("COLUMNS", None)  # mkdocs wraps its log to a terminal's width: one line a message
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        said = "\n".join(result.stderr.strip().splitlines()[-5:])
        raise PublishError(f"the site did not build (mkdocs build --strict):\n{said}")
    return lesser(result.stderr)


def lesser(log: str) -> list[str]:
    """What the site goes without, and why, from mkdocs's ``log``: the lines the book's hooks
    mark with LESSER (mkdocs prints them at INFO level, among its own)."""
    return [line.split(LESSER, 1)[1].strip() for line in log.splitlines() if LESSER in line]


def step(what: str) -> None:
    """Say what is starting, before it takes its time."""
    print(f"publish: {what} ...", flush=True)


def browser() -> str:
    """The Chromium to print with."""
    for name in BROWSERS:
        if found := shutil.which(name):
            return found
    raise PublishError(
        "no Chromium to print the PDF with: install it (Debian: apt-get install chromium "
        "fonts-liberation), then run the same command again"
    )


def print_pdf(page: Path, out: Path) -> Path:
    """Print the built page ``page`` (an HTML file) to the PDF ``out``, with an outline."""
    with tempfile.TemporaryDirectory() as profile:
        command = [browser(), *PRINTING, f"--user-data-dir={profile}", f"--print-to-pdf={out}"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:  # root: Chromium's sandbox refuses it
            command.append("--no-sandbox")
        command.append(page.resolve().as_uri())
        out.unlink(missing_ok=True)
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if result.returncode != 0 or not out.exists() or not out.read_bytes().startswith(b"%PDF"):
        said = (result.stderr.strip().splitlines() or ["no message"])[-1]
        raise PublishError(f"Chromium did not print {page.name} to {out} ({said})")
    return out


def pages(pdf: Path) -> int:
    """How many pages ``pdf`` has (Chromium's PDFs list them uncompressed)."""
    return len(re.findall(rb"/Type\s*/Page\b", pdf.read_bytes()))


def has_outline(pdf: Path) -> bool:
    """Does ``pdf`` carry an outline (bookmarks) a PDF reader shows beside the pages?"""
    return re.search(rb"/Outlines\s+\d+\s+0\s+R", pdf.read_bytes()) is not None


def pdf(site: Path = SITE) -> Path:
    """The whole book, from the site built in ``site``, printed into it as PDF."""
    out = print_pdf(site / PRINT_PAGE, site / PDF)
    if not has_outline(out):
        raise PublishError(f"{out} has no outline: is this Chromium older than 126?")
    return out


def archive(site: Path = SITE, out: Path = ARCHIVE) -> Path:
    """``site`` (with its PDF) as one zip, its files under the-literate-micrograd/."""
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zipped:
        for path in sorted(path for path in site.rglob("*") if path.is_file()):
            zipped.write(path, f"{out.stem}/{path.relative_to(site).as_posix()}")
    return out


OPTIONS = {"build": ("--archive",), "pdf": ()}  # each command's options


def usage_error(command: str, options: list[str]) -> str | None:
    """What is wrong with ``command`` and its ``options``, in one line; None if nothing."""
    if command not in OPTIONS:
        return f"no command {command!r}: use {' or '.join(OPTIONS)}"
    for option in options:
        if option not in OPTIONS[command]:
            valid = ", ".join(OPTIONS[command]) or "none"
            return f"{command} has no option {option} (its options: {valid})"
    return None


def main(argv: list[str]) -> int:
    command, options = (argv[0], argv[1:]) if argv else ("", [])
    if {"-h", "--help"} & set(argv):
        print(__doc__)
        return 0
    if wrong := usage_error(command, options):
        print(f"publish: {wrong}", file=sys.stderr)
        return 2
    reasons: list[str] = []
    try:
        site = relative(SITE)
        step(f"building the site into {site}/ (mkdocs build --strict: every chapter runs)")
        reasons = build()
        print(f"publish: wrote {site}/ (open {relative(SITE / 'index.html')})")
        if command == "pdf" or options:
            step(f"printing the whole book with Chromium ({relative(SITE / PRINT_PAGE)})")
            out = pdf()
            print(f"publish: wrote {relative(out)} ({pages(out)} pages, with an outline)")
        if options:  # --archive
            step(f"zipping {site}/ with its PDF")
            print(f"publish: wrote {relative(archive())} (the site and the PDF, to read offline)")
    except PublishError as error:
        print(f"publish: {error}", file=sys.stderr)
        return 1
    finally:  # what the site goes without, after everything else
        sys.stdout.flush()
        for reason in reasons:
            print(f"publish: the site is lesser: {reason}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
