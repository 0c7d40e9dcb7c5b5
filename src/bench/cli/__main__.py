"""``python -m bench.cli``: the same as the ``bench`` console script."""

from bench.cli.main import main

main()
