"""MkDocs hooks for the docs site (``hooks:`` in ``mkdocs.yml``).

The docstrings cross-reference in Sphinx's roles (``:class:`Rules```), which mkdocstrings
renders as the role's name before the code; the role is dropped, the code kept.
"""

from __future__ import annotations

import re
from typing import Any

ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj|const):(?=<code>)")


def on_page_content(html: str, **kwargs: Any) -> str:
    """The page's HTML with every Sphinx role before a ``<code>`` removed."""
    return ROLE.sub("", html)
