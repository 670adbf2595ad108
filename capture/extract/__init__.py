"""Static extraction from Miles's source (``ast`` only, Miles is never imported)."""
from __future__ import annotations

EXTRACTOR_VERSION = "miles101-extract/1.0"
