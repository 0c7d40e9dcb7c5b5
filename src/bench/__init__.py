"""bench-suite: a harness, verifier and board for tool-using and retrieval-augmented agents."""

__version__ = "0.1.0"
HARNESS_VERSION = __version__

__all__ = ["HARNESS_VERSION", "__version__"]
