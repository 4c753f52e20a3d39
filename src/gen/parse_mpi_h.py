#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Parse a preprocessed mpi.h into prototype records for the wrapper generator.

gen_wrappers.py feeds it the output of `mpicc -E` on a file that includes mpi.h, so the
macros and configure-time conditionals of the installed MPI are already resolved. Every
`PMPI_*` function declaration becomes one record (return type, MPI_ name, parameters);
the MPI_ entry and the PMPI_ step of the stack share it.
"""
import re
import sys

ATTR_RE = re.compile(r'__attribute__\s*\(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\)')
STMT_RE = re.compile(r'^(?P<ret>[A-Za-z_][\w \*]*?)\s*\bPMPI_(?P<name>\w+)\s*\((?P<params>.*)\)$')
BASIC = {'int', 'char', 'void', 'double', 'float', 'long', 'short', 'unsigned', 'const'}


def strip_noise(text):
    """Drop line markers, attributes and storage keywords that are not part of a prototype."""
    text = '\n'.join(l for l in text.splitlines() if not l.lstrip().startswith('#'))
    text = ATTR_RE.sub(' ', text)
    text = re.sub(r'\b(extern|__extension__|__restrict|__inline|static|inline)\b', ' ', text)
    return re.sub(r'\s+', ' ', text)


def split_params(params):
    """Split a parameter list at top-level commas."""
    out, depth, cur = [], 0, ''
    for ch in params:
        if ch == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
            continue
        depth += ch in '([' and 1 or (ch in ')]' and -1 or 0)
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def split_param(param, index):
    """(type, name, array suffix) for one parameter; unnamed ones get a made-up name."""
    if param == '...':
        return ('...', '...', '')
    m = re.match(r'^(.*?)([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)$', param)
    if m is None or not m.group(1).strip() or m.group(2) in BASIC or m.group(2).startswith('MPI_'):
        return (param, 'a%d' % index, '')
    return (m.group(1).strip(), m.group(2), m.group(3).replace(' ', ''))


def parse(text):
    """All PMPI_ prototypes, in declaration order; the first declaration of a name wins."""
    seen, out = set(), []
    for stmt in strip_noise(text).replace('{', ';').replace('}', ';').split(';'):
        m = STMT_RE.match(stmt.strip())
        if m is None or 'typedef' in m.group('ret') or '(' in m.group('ret'):
            continue
        name = 'MPI_' + m.group('name')
        if name in seen:
            continue
        seen.add(name)
        params = m.group('params').strip()
        plist = [] if params in ('', 'void') else [split_param(p, i) for i, p in enumerate(split_params(params))]
        out.append((m.group('ret').strip(), name, plist))
    return out


def main():
    for ret, name, plist in parse(sys.stdin.read()):
        print('%s %s(%s)' % (ret, name, ', '.join('%s %s%s' % p for p in plist)))


if __name__ == '__main__':
    main()
