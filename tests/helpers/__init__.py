"""What the tests share: `run_text`, a command run to its end, its output kept as text."""

import subprocess


def run_text(command: list, **options) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, **options)
