#!/usr/bin/env python3
"""The code's shape rules (ctest lint.code), each a number a reviewer would otherwise count:

- no file under src/ over 500 lines, no function over 120 (a definition opening at the start of
  a line, to its closing brace at the start of a line);
- module-private headers (src/<module>/..., included by their path under src/) are included only
  by their own module's sources (tests, white-box, may include any);
- yaml-cpp (`YAML::`) only in core's YAML reader (src/core/yaml_reader*, include/shardsim/core/
  yaml_reader.hpp) and in io/.

Exit 1 with one line per problem."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 120
MODULES = {d for d in os.listdir(os.path.join(ROOT, 'src'))
           if os.path.isdir(os.path.join(ROOT, 'src', d))}
DEFINITION = re.compile(r'^[A-Za-z_][^;{}]*\)[^;{}]*\{\s*$')
NOT_FUNCTION = re.compile(r'^(namespace|struct|class|enum|union|extern|template\s*<[^>]*>\s*(struct|class))\b')
PRIVATE_INCLUDE = re.compile(r'#include "([a-z_]+)/[^"]+\.hpp"')


def sources(top):
    for d, _, files in os.walk(os.path.join(ROOT, top)):
        for f in sorted(files):
            if f.endswith(('.cpp', '.hpp')):
                yield os.path.relpath(os.path.join(d, f), ROOT)


def long_functions(path, lines):
    problems = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if DEFINITION.match(line) and not NOT_FUNCTION.match(line):
            j = i + 1
            while j < len(lines) and not lines[j].startswith('}'):
                j += 1
            length = j - i + 1
            if length > MAX_FUNCTION_LINES:
                problems.append(f'{path}:{i + 1}: a function of {length} lines (at most '
                                f'{MAX_FUNCTION_LINES}): {line.strip()[:70]}')
            i = j
        i += 1
    return problems


def main():
    problems = []
    for path in sources('src'):
        lines = open(os.path.join(ROOT, path), encoding='utf-8').read().split('\n')
        if len(lines) - 1 > MAX_FILE_LINES:
            problems.append(f'{path}: {len(lines) - 1} lines (at most {MAX_FILE_LINES})')
        problems += long_functions(path, lines)
    for top in ('src', 'bench', 'python', 'app'):
        if not os.path.isdir(os.path.join(ROOT, top)):
            continue
        for path in sources(top):
            parts = path.split(os.sep)
            own = parts[1] if parts[0] == 'src' and len(parts) > 2 else None
            text = open(os.path.join(ROOT, path), encoding='utf-8').read()
            for n, line in enumerate(text.split('\n'), 1):
                m = PRIVATE_INCLUDE.match(line.strip())
                if m and m.group(1) in MODULES and m.group(1) != own:
                    problems.append(f'{path}:{n}: includes a private header of {m.group(1)}/ '
                                    f'(only src/{m.group(1)}/ and the tests may)')
            yaml_ok = (path.startswith(os.path.join('src', 'io')) or
                       path.startswith(os.path.join('src', 'core', 'yaml_reader')))
            if top == 'src' and 'YAML::' in text and not yaml_ok:
                problems.append(f'{path}: uses yaml-cpp (YAML::) outside core/yaml_reader* and io/')
    for path in sources('include'):
        text = open(os.path.join(ROOT, path), encoding='utf-8').read()
        if 'YAML::' in text and not path.endswith(os.path.join('core', 'yaml_reader.hpp')):
            problems.append(f'{path}: uses yaml-cpp (YAML::) in a public header')
    for p in problems:
        print(p)
    print(f'check_code: {len(problems)} problem(s)', file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
