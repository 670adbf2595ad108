"""The reader's tools: one stdlib-only file each (read_run, watchdog, preflight), served by the pages
as they are and imported by the core and the lab. Nothing here imports anything but the standard
library (and preflight its sibling watchdog); tests/test_layers.py holds them to it."""
