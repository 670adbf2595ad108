"""Real-browser tests of the built manual (a package, so its conftest does not shadow tests/conftest.py)."""
