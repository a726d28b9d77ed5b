"""The documentation check under its old name: ``python docs/readme_check.py`` is ``python docs/check_pages.py``.

Every page (README.md, examples/README.md, docs/site/**/*.md) is checked; see ``docs/check_pages.py``.
"""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from check_pages import *  # noqa: E402,F403
from check_pages import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
