"""``python3 -m capture.crosscheck``: the host run (see capture/crosscheck/driver.py)."""
import sys

from capture.crosscheck.driver import main

sys.exit(main())
