"""The site's tools: the mkdocs hooks (hooks.py, the one entry) and what they call."""
