"""``python -m tilemem`` works like the ``tilemem`` command."""
import sys

from .cli import main

sys.exit(main())
