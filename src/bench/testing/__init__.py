"""Test doubles that speak real protocols. ``bench.testing.mock_server``: a loopback-only mock of
OpenAI-compatible and Anthropic endpoints with faults on demand (standard library only).

Import from the module itself (``from bench.testing.mock_server import MockServer``): keeping
this file empty lets ``python -m bench.testing.mock_server`` run without a double import.
"""
