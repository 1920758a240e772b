#!/usr/bin/env python3
"""fs_names_lint.py NAME... -- FILE...: print every string literal of the C
FILEs (comments removed by the compiler's preprocessor pass) that names one
of the filesystems NAME as a whole word, as FILE:LINE: "literal". Exit 1
when any does. Used by tests/cli/test_fs.sh: outside src/fs, no source
names a filesystem in a string literal."""
import re
import subprocess
import sys

sep = sys.argv.index("--")
names, files = sys.argv[1:sep], sys.argv[sep + 1:]
word = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, names)) + r")(?![A-Za-z0-9_])")
literal = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
found = 0
for path in files:
    # -fpreprocessed: comments out, nothing expanded or included; line
    # markers keep the numbers honest.
    out = subprocess.run(["gcc", "-fpreprocessed", "-dD", "-E", "-P", "-C", "-x", "c", path],
                         capture_output=True, text=True)
    if out.returncode:
        sys.stderr.write(out.stderr)
        sys.exit(2)
    text = subprocess.run(["gcc", "-fpreprocessed", "-dD", "-E", "-x", "c", path],
                          capture_output=True, text=True).stdout
    line = 0
    for raw in text.splitlines():
        m = re.match(r'# (\d+) "', raw)
        if m:
            line = int(m.group(1))
            continue
        for lit in literal.findall(raw):
            if word.search(lit):
                print(f'{path}:{line}: "{lit}"')
                found += 1
        line += 1
sys.exit(1 if found else 0)
