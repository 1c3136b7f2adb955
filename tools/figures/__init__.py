"""The book's figures, drawn from the chapters' own code: the build's side.

The catalogue and the graph figures run in the page too (tools/page/figures.py,
graphs.py); here are the plots (plots.py, with pictures.py's primitives), each figure drawn
from its chapter into docs/figures/ (from_chapters.py), the step tables written under
stepped figures in their chapters (step_tables.py), and the `figures` command
(__main__.py). Importing this package registers every figure.
"""

from tools.figures import plots  # noqa: F401 (registers the plots)
from tools.page import graphs  # noqa: F401 (registers the graphs)
