#!/usr/bin/env python3
"""Checks lib/'s layering: a folder includes only its own headers, the public header
and those of the folders on lower rows of the block in lib/README.md (the rule is
written there, once). Usage: check-layering.py [LIB_DIR]; exit 1 on a broken rule."""
import os
import re
import sys

MARKER = "<!-- layering-check:"
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def read_rows(readme):
    """The rows of folder names in the fenced block after MARKER, highest first."""
    lines = open(readme, encoding="utf-8").read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(MARKER))
    fence = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
    rows = []
    for line in lines[fence + 1:]:
        if line.startswith("```"):
            return rows
        if line.strip():
            rows.append(line.split())
    raise SystemExit(f"{readme}: the block after {MARKER!r} is not closed")


def folder_of(path, lib):
    """lib/<folder>/... -> folder; anything else (include/, lib/ glue) -> None."""
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(lib))
    parts = rel.split(os.sep)
    return parts[0] if len(parts) > 1 and parts[0] != ".." else None


def main(lib):
    lib = os.path.abspath(lib)
    public = os.path.join(os.path.dirname(lib), "include")
    rows = read_rows(os.path.join(lib, "README.md"))
    level = {name: len(rows) - i for i, row in enumerate(rows) for name in row}
    problems = []
    folders = sorted(d for d in os.listdir(lib) if os.path.isdir(os.path.join(lib, d)))
    for d in sorted(set(folders) - set(level)):
        problems.append(f"lib/{d}/ has no row in lib/README.md's layering block")
    for d in sorted(set(level) - set(folders)):
        problems.append(f"lib/README.md's layering block names lib/{d}/, which does not exist")
    for top in folders:
        for dirpath, _, files in os.walk(os.path.join(lib, top)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                text = open(path, encoding="utf-8").read()
                for inc in INCLUDE.findall(text):
                    here = os.path.join(dirpath, inc)
                    target = here if os.path.exists(here) else os.path.join(public, inc)
                    shown = os.path.relpath(path, os.path.dirname(lib))
                    if not os.path.exists(target):
                        problems.append(f'{shown}: #include "{inc}" is neither beside it nor in include/')
                        continue
                    dep = folder_of(target, lib)
                    if dep is None or dep == top or top not in level or dep not in level:
                        continue
                    if level[dep] >= level[top]:
                        problems.append(f'{shown}: #include "{inc}": lib/{top}/ may not include '
                                        f"lib/{dep}/ (same row or above it in lib/README.md)")
    for p in problems:
        print("layering-check:", p, file=sys.stderr)
    if problems:
        return 1
    print("layering-check: lib/ includes follow lib/README.md's rows ("
          + " <- ".join(" ".join(r) for r in reversed(rows)) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "lib"))
