"""Learner mode: what the book checks a learner's engine with (tools/learner.py: the commands)."""
