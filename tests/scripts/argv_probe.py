"""Writes what a script sees of its launch to the JSON file named by argv[1]: for tests/test_cli.py."""
import json
import os
import sys

with open(sys.argv[1], "w") as fh:
    json.dump({"argv": sys.argv, "name": __name__, "path0": sys.path[0], "file": __file__,
               "cwd": os.getcwd()}, fh)
