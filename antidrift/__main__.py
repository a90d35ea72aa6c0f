"""`python -m antidrift`: the same as the `antidrift` command."""

import sys

from antidrift.commands import main

sys.exit(main())
