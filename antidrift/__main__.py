"""`python -m antidrift`: the same as the `antidrift` command."""

import sys

from antidrift.server.commands import main

sys.exit(main())
