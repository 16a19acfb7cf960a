"""`python -m tarsim.cli`."""

import sys

from tarsim.cli import main

sys.exit(main())
