"""The fixed tokeniser retrieval uses, for passages and queries alike.

1. Unicode NFKC normalisation (full-width letters, ligatures and compatibility digits fold to
   their plain forms: "ｆｉｌｅ" and "ﬁle" both become "file").
2. Lowercase (``str.lower``).
3. Split into maximal runs of alphanumeric characters (``str.isalnum``: letters of any script
   and digits). Everything else separates tokens, including ``_``, ``-``, ``'`` and ``.``, so
   "don't" is "don" + "t" and "v2.1" is "v2" + "1".
4. Drop tokens in :data:`bench.corpus.stopwords.STOPWORDS`.

Nothing else: no stemming, no length filter. Changing any step changes retrieval results, so it
is a benchmark-version change.
"""

from __future__ import annotations

import re
import unicodedata

from .stopwords import STOPWORDS

# ``\w`` is ``str.isalnum()`` plus ``_``; excluding ``_`` leaves runs of alphanumerics.
_TOKEN_RE = re.compile(r"[^\W_]+")


def tokenize(text: str) -> list[str]:
    """Tokens of ``text`` in order, stopwords removed (duplicates kept)."""
    folded = unicodedata.normalize("NFKC", text).lower()
    return [token for token in _TOKEN_RE.findall(folded) if token not in STOPWORDS]


__all__ = ["tokenize"]
