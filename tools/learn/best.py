"""A learner's best scores, remembered: per chapter, the most checks of the engine that ever
passed and when; when every check first passed; how many hints each function has had. Kept
as JSON beside the learner's file in a terminal (``record_path``), and in the browser's
storage on the page; merged here, for both (``remember``), and told in the same words
(``best_lines``).
"""

import datetime
import json
from pathlib import Path

from tools.learn.places import chapters_named
from tools.learn.table import ChapterResult

KIND = "literate-micrograd learner progress"  # marks the file as ours: never overwrite others


def record_path(engine: Path) -> Path:
    """Where the scores of ``engine`` are kept: micrograd.py -> micrograd.progress.json."""
    return engine.with_name(f"{engine.stem}.progress.json")


def now() -> str:
    return datetime.datetime.now().strftime("%Y-%m-%d %H:%M")


def remember(record: dict, results: list[ChapterResult], when: str) -> dict:
    """``record`` (as ``read_record`` gives it) updated with ``results``, reached ``when``:
    a chapter's best rises only when more of its checks pass than ever before."""
    chapters = dict(record.get("chapters", {}))
    for r in results:
        best = chapters.get(r.chapter.name)
        if r.checks and (best is None or r.passed > best["passed"] or best["of"] != r.checks):
            chapters[r.chapter.name] = {"passed": r.passed, "of": r.checks, "when": when}
    new = {"kind": KIND, "chapters": chapters, "hints": dict(record.get("hints", {}))}
    everything = record.get("every check passed") or (when if _all_pass(results) else None)
    if everything is not None:
        new["every check passed"] = everything
    return new


def _all_pass(results: list[ChapterResult]) -> bool:
    """Every chapter of the book with checks of the engine ran, and passed them all."""
    ran = {r.chapter.name for r in results if not r.failure}
    return all(c.name in ran for c in chapters_named([])) and all(
        r.passed == r.checks and not r.failure for r in results
    )


def best_lines(record: dict, results: list[ChapterResult]) -> str:
    """What the table adds, as lines of text: each chapter whose best is above its score now
    (with when it was reached), and when every check first passed, once it has."""
    chapters = record.get("chapters", {})
    out = []
    for r in results:
        best = chapters.get(r.chapter.name)
        if best and best["of"] == r.checks and best["passed"] > r.passed:
            out.append(
                f"  {r.chapter.name}: {best['passed']} of {best['of']} on {best['when']} "
                f"(now {r.passed})"
            )
    if out:
        out.insert(0, "Your best so far, where it was higher than now:")
    if "every check passed" in record:
        out.append(f"Every check of the book first passed on {record['every check passed']}.")
    return "".join(f"{line}\n" for line in out)


def read_record(path: Path) -> dict | None:
    """The record at ``path``: empty if there is none; None if the file is not ours (or
    not readable), and so must be left alone."""
    if not path.exists():
        return {}
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("kind") == KIND else None


def write_record(path: Path, record: dict) -> None:
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
