"""``python -m privcheck``: the same as the ``privcheck`` command."""

from privcheck.cli.app import main

main()
