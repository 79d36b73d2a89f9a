#!/usr/bin/env python3
"""Holds the manual to its shape (a ctest, docs.lint; docs/architecture.md "Docs").

  check_docs.py [--root DIR] [--max-words N] [--max-paragraph-words N] [--max-readme-lines N]

Checks README.md and every docs/**/*.md outside docs/notes/ (derivations and measurement diaries
live there, unbounded):
- the reference's words (whitespace-separated tokens outside code blocks) are at most
  --max-words (default 42667: a third of the 128,000 words the docs held when the rewrite began);
- no paragraph is longer than --max-paragraph-words (default 150): a paragraph is a run of
  non-blank lines outside code blocks and tables (a list whose items are not separated by blank
  lines is one paragraph);
- README.md has at most --max-readme-lines lines (default 150);
- no page cites DESIGN.md (a file users do not have).
Prints each violation as FILE:LINE: what; exit 1 when there is one, 2 on bad arguments.
"""
import argparse
import os
import sys


def pages(root):
    out = [os.path.join(root, "README.md")]
    for base, dirs, files in os.walk(os.path.join(root, "docs")):
        rel = os.path.relpath(base, os.path.join(root, "docs"))
        if rel == "notes" or rel.startswith("notes" + os.sep):
            dirs[:] = []
            continue
        dirs.sort()
        out += [os.path.join(base, f) for f in sorted(files) if f.endswith(".md")]
    return out


def paragraphs(lines):
    """(first line number, words) of each paragraph outside code blocks and tables."""
    out, start, words, fenced = [], None, 0, False
    def close():
        nonlocal start, words
        if start is not None:
            out.append((start, words))
        start, words = None, 0
    for n, line in enumerate(lines, start=1):
        s = line.strip()
        if s.startswith("```"):
            close()
            fenced = not fenced
            continue
        if fenced:
            continue
        if not s or s.startswith("|") or s.startswith("#") or s.startswith("<!--"):
            close()
            continue
        if start is None:
            start = n
        words += len(s.split())
    close()
    return out


def words_of(lines):
    total, fenced = 0, False
    for line in lines:
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            total += len(line.split())
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--max-words", type=int, default=42667)
    ap.add_argument("--max-paragraph-words", type=int, default=150)
    ap.add_argument("--max-readme-lines", type=int, default=150)
    args = ap.parse_args()
    bad, total, by_page = [], 0, []
    for page in pages(args.root):
        rel = os.path.relpath(page, args.root)
        try:
            with open(page, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError as e:
            bad.append(f"{rel}: cannot read ({e.strerror})")
            continue
        w = words_of(lines)
        total += w
        by_page.append((w, rel))
        for start, n in paragraphs(lines):
            if n > args.max_paragraph_words:
                bad.append(f"{rel}:{start}: a paragraph of {n} words (at most "
                           f"{args.max_paragraph_words}; derivations go to docs/notes/)")
        for n, line in enumerate(lines, start=1):
            if "DESIGN.md" in line:
                bad.append(f"{rel}:{n}: cites DESIGN.md, which users do not have")
        if rel == "README.md" and len(lines) > args.max_readme_lines:
            bad.append(f"README.md: {len(lines)} lines (at most {args.max_readme_lines})")
    if total > args.max_words:
        top = ", ".join(f"{r} {w}" for w, r in sorted(by_page, reverse=True)[:5])
        bad.append(f"the reference holds {total} words (at most {args.max_words}; largest: {top})")
    for b in bad:
        print(b)
    print(f"check_docs: {len(by_page)} pages, {total} words, {len(bad)} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
