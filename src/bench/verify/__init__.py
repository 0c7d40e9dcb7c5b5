"""``bench verify``: check a bundle, cheapest first, and answer with one stable code."""

from .codes import UNUSABLE, Code, exit_code
from .failure import VerifyFailure
from .verifier import BundleVerdict, VerifyOptions, verify_bundle

__all__ = [
    "UNUSABLE",
    "BundleVerdict",
    "Code",
    "VerifyFailure",
    "VerifyOptions",
    "exit_code",
    "verify_bundle",
]
