"""The fixed English stopword list the tokeniser drops.

Written out by hand on purpose: it is part of the benchmark (it decides which queries can match
a passage), so it must never change with an installed package's list. Changing it changes
retrieval results, so it is a benchmark-version change. The one-letter and two-letter entries
at the end are the pieces English contractions split into ("don't" -> "don", "t").
"""

from __future__ import annotations

STOPWORDS: frozenset[str] = frozenset(
    {
        # articles, conjunctions
        "a", "an", "the", "and", "or", "but", "nor", "so", "if", "than", "then",
        "because", "as", "while", "until",
        # prepositions
        "about", "above", "after", "again", "against", "at", "before", "below", "between",
        "by", "down", "during", "for", "from", "further", "in", "into", "of", "off", "on",
        "once", "out", "over", "through", "to", "under", "up", "with",
        # pronouns and determiners
        "i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours",
        "yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers",
        "herself", "it", "its", "itself", "they", "them", "their", "theirs", "themselves",
        "this", "that", "these", "those", "all", "any", "both", "each", "few", "more", "most",
        "other", "some", "such", "own", "same",
        # question words
        "what", "which", "who", "whom", "when", "where", "why", "how",
        # auxiliaries
        "am", "is", "are", "was", "were", "be", "been", "being", "have", "has", "had",
        "having", "do", "does", "did", "doing", "can", "could", "will", "would", "should",
        # adverbs and negation
        "no", "not", "only", "too", "very", "just", "now", "here", "there",
        # contraction pieces ("won" is left out: it is also a verb)
        "s", "t", "d", "ll", "m", "re", "ve", "don", "doesn", "didn", "isn", "aren", "wasn",
        "weren", "hasn", "haven", "hadn", "couldn", "wouldn", "shouldn",
    }
)  # fmt: skip

__all__ = ["STOPWORDS"]
