"""`python -m tarsim`."""

import sys

from tarsim.cli import main

sys.exit(main())
