"""``python -m explorer run SCRIPT.py [ARGS...]``: see ``explorer.cli``."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
