"""Real-browser test of the built book (runs after the build; see conftest.py)."""
