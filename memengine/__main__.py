"""Entry point of the `memengine` console script and of `python -m memengine`."""
from __future__ import annotations

import sys


def main() -> int:
    from adapters.cli import main as cli_main  # imported on call: `import memengine.__main__` stays cheap

    return cli_main(sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
