"""``python -m ridgeline``: the command-line tool, without the installed ``ridgeline`` script."""

from ridgeline.cli import main

raise SystemExit(main())
