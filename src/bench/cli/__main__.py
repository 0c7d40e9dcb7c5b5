"""``python -m bench.cli``: the same as the ``bench`` console script, exit status included."""

import sys

from bench.cli.main import main

sys.exit(main())
