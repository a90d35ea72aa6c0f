"""`python -m antidrift`: the same as the `antidrift` command."""

import sys

from antidrift.cli.commands import main

sys.exit(main())
