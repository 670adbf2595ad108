"""The lab: run files, the recorder, its watchdog and heat guard, and the reader tools."""
