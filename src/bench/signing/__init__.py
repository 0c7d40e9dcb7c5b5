"""SSH signatures (SSHSIG, Ed25519), ``allowed_signers``, and signed bundles of runs."""

from .allowed_signers import AllowedSigners, Problem, Signer, lint_file, lint_text, signer_line
from .errors import KeyError_, SignatureError, SignersError
from .keys import load_private_key, public_blob, public_line, read_public_key_file
from .sshsig import NAMESPACE, parse, sign, verify

__all__ = [
    "NAMESPACE",
    "AllowedSigners",
    "KeyError_",
    "Problem",
    "SignatureError",
    "Signer",
    "SignersError",
    "lint_file",
    "lint_text",
    "load_private_key",
    "parse",
    "public_blob",
    "public_line",
    "read_public_key_file",
    "sign",
    "signer_line",
    "verify",
]
