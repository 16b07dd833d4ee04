"""``python -m tilemem`` works like the ``tilemem`` command."""
import sys

from tilemem.cli import main

sys.exit(main())
