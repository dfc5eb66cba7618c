"""``python -m mmc``: the ``mmc`` command (:func:`mmc.cli.main`)."""

import sys

from mmc.cli import main

sys.exit(main())
