"""Browser tests of the built book (see conftest.py)."""
