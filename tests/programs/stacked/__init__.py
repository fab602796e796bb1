"""A tiny GPT-style decoder's code, in a package of its own as real models are: tests read its lines by their text
(tests/test_inlined.py builds records that name them)."""
