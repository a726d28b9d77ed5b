"""``python -m privcheck.cli``: the same as the ``privcheck`` command."""

from privcheck.cli.app import main

main()
