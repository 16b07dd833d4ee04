"""``python -m tilemem`` works like the ``tilemem`` command."""
from tilemem.cli import console_main

console_main()
