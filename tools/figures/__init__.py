"""The book's figures at build time: importing this registers every one (the catalogue and
the graphs are tools/page/'s, which the page runs too).
"""

from tools.figures import plots  # noqa: F401 (registers the plots)
from tools.page import graphs  # noqa: F401 (registers the graphs)
