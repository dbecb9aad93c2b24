#!/usr/bin/env python3
"""Where a wasm bundle's code goes: bytes of function bodies per crate, per module of the app,
and the largest functions, read from the module's code and name sections.

Usage (the page bundle as cargo leaves it, before wasm-bindgen and wasm-opt, which keep the
proportions but drop the names):
    cargo build --profile wasm-release --target wasm32-unknown-unknown -p app --bin app
    scripts/wasm-sizes.py target/wasm32-unknown-unknown/wasm-release/app.wasm [--top N]

Sizes are uncompressed body bytes; `__wbindgen_describe_*` functions exist only before
wasm-bindgen (it removes them). Monomorphised generic code is counted under the crate that
defines the generic (tachys, serde_json, …), not under the app module that instantiated it.
"""
import argparse
import collections
import re


def leb(data, i):
    result = shift = 0
    while True:
        byte = data[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, i


def read(path):
    """(function bodies' sizes in order, names by function index, imported function count)."""
    data = open(path, 'rb').read()
    if data[:4] != b'\0asm':
        raise SystemExit(f'{path}: not a wasm module')
    i, bodies, names, imported = 8, [], {}, 0
    while i < len(data):
        section = data[i]
        size, i = leb(data, i + 1)
        end = i + size
        if section == 2:  # imports: function imports take the first indices
            n, j = leb(data, i)
            for _ in range(n):
                for _ in range(2):  # module, field
                    length, j = leb(data, j)
                    j += length
                kind = data[j]
                j += 1
                if kind == 0:
                    _, j = leb(data, j)
                    imported += 1
                elif kind in (1, 2):  # table, memory: (elem type) limits
                    j += kind == 1
                    flags, j = leb(data, j)
                    _, j = leb(data, j)
                    if flags & 1:
                        _, j = leb(data, j)
                elif kind == 3:
                    j += 2
        elif section == 10:
            n, j = leb(data, i)
            for _ in range(n):
                length, k = leb(data, j)
                bodies.append(k - j + length)
                j = k + length
        elif section == 0:
            length, j = leb(data, i)
            if data[j:j + length] == b'name':
                j += length
                while j < end:
                    sub = data[j]
                    sub_size, j = leb(data, j + 1)
                    if sub == 1:
                        n, k = leb(data, j)
                        for _ in range(n):
                            index, k = leb(data, k)
                            length, k = leb(data, k)
                            names[index] = data[k:k + length].decode('utf8', 'replace')
                            k += length
                    j += sub_size
        i = end
    return bodies, names, imported


def path_of(name):
    """The leading path idents of a mangled name: legacy `_ZN3app5pages…`, v0 `_R…`, or the
    crate of an impl (`_ZN…_$LT$serde_json..de…`)."""
    if name.startswith('__wbindgen_describe'):
        return ['(wasm-bindgen descriptors, removed by wasm-bindgen)']
    m = re.match(r'_ZN((?:\d+[^\d][^E]*?)+)E?$', name) or re.match(r'_ZN(.*)', name)
    if m:
        rest, parts = m.group(1), []
        while rest and rest[0].isdigit() and len(parts) < 3:
            n = re.match(r'\d+', rest).group(0)
            parts.append(rest[len(n):len(n) + int(n)])
            rest = rest[len(n) + int(n):]
        if parts and ('$LT$' in parts[0] or parts[0].startswith('_')):
            inner = re.search(r'([a-z_][a-z0-9_]*)\.\.([a-z_][a-z0-9_]*)?', parts[0])
            return [inner.group(1), inner.group(2) or ''] if inner else ['<impl>']
        return parts or ['?']
    if name.startswith('_R'):
        crate = re.search(r'\d+_?([a-z_][a-z0-9_]+?)(?=\d)', name[2:])
        return [crate.group(1) if crate else '?']
    return [name.split('::')[0][:30] or '?']


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('wasm')
    ap.add_argument('--top', type=int, default=25)
    ap.add_argument('--app', default='app', help="the crate whose modules are listed (default app)")
    args = ap.parse_args()
    bodies, names, imported = read(args.wasm)
    total = sum(bodies)
    crates, modules, functions = collections.Counter(), collections.Counter(), []
    for k, size in enumerate(bodies):
        name = names.get(imported + k, f'#{imported + k}')
        path = path_of(name)
        crates[path[0]] += size
        if path[0] == args.app:
            grouped = len(path) > 2 and path[1] in ('components', 'leaderboard', 'pages')
            modules['/'.join(path[1:3] if grouped else path[1:2])] += size
        functions.append((size, name))
    print(f'{args.wasm}: {total} bytes of code in {len(bodies)} functions'
          f'{"" if names else " (no name section: build without wasm-opt/strip)"}')
    print('\nby crate')
    for crate, size in crates.most_common(args.top):
        print(f'{size:10d} {100 * size / total:5.1f} %  {crate}')
    print(f'\nby module of {args.app}')
    for module, size in modules.most_common(args.top):
        print(f'{size:10d} {100 * size / total:5.1f} %  {module}')
    print('\nlargest functions')
    for size, name in sorted(functions, reverse=True)[:args.top]:
        print(f'{size:10d}  {name[:150]}')


if __name__ == '__main__':
    main()
