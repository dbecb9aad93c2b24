#!/usr/bin/env python3
# Fails on an import circle between the modules (files) of a crate.
#   scripts/check-import-circles.py server/src workbench/src   # one crate src dir per argument
#   scripts/check-import-circles.py --self-test
# Each .rs file is a module (path from the file layout or `#[path]`). A -> B when A names a
# `crate::`/`super::`/`self::` path, or a path through a name bound by `mod x;` or by a `use` of a
# module (`use crate::registry;` then `registry::x::Y`), that resolves (longest known module
# prefix) into B. Comments, strings and everything from the first `#[cfg(test)]` line on are
# ignored. Prints each strongly connected component (size >= 2) with one example file:line per
# edge inside it and exits 1; exits 0 when there is none. Python 3 standard library only.
import bisect, os, re, subprocess, sys, tempfile

RAW_STR = re.compile(r'(?<!\w)[bc]?r(#*)"')
TOKEN = re.compile(r"\$?\w+|::|\S")
WORD = re.compile(r"\$?\w+")
PATH_MOD = re.compile(r'#\[path\s*=\s*"([^"]+)"\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;')


def strip(text):
    """Blank out comments and string/char literals, keeping newlines (so line numbers hold)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c, nxt = text[i], text[i + 1:i + 2]
        if c == "/" and nxt == "/":                      # line and doc comments
            j = text.find("\n", i) % (n + 1)            # (-1, not found, becomes n)
        elif c == "/" and nxt == "*":                    # block comments, nested
            j, depth = i + 2, 1
            while j < n and depth:
                step = {"/*": 1, "*/": -1}.get(text[j:j + 2], 0)
                depth, j = depth + step, j + (2 if step else 1)
        elif m := RAW_STR.match(text, i):                # raw strings r#"…"#
            end = text.find('"' + m.group(1), m.end())
            j = n if end < 0 else end + 1 + len(m.group(1))
        elif c == '"':                                   # ordinary (and b"…") strings
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
        elif c == "'" and nxt == "\\":                   # escaped char literal '\n', '\''
            j = text.find("'", i + 3) + 1 or n
        elif c == "'" and text[i + 2:i + 3] == "'":      # plain char literal 'x' (else a lifetime)
            j = i + 3
        else:
            out.append(c); i += 1; continue
        out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
    return "".join(out)


def parse_use(toks, i, prefix, out):
    """Expand the use tree at toks[i] into out as (segments, token index, bound name); return next i."""
    segs = list(prefix)
    while True:
        t = toks[i][0]
        if t == "{":
            i += 1
            while toks[i][0] not in ("}", ";"):
                i = parse_use(toks, i, segs, out)
                i += toks[i][0] == ","
            return i + 1
        if t in ("*", ";"):                              # glob (binds nothing we track)
            out.append((segs, i, None)); return i + 1
        segs, i = segs + [t], i + 1
        if t == "::": continue                           # leading `::`: kept, marks an extern path
        if toks[i][0] == "::": i += 1; continue
        name = segs[-2] if t == "self" and len(segs) > 1 else t
        if toks[i][0] == "as": name, i = toks[i + 1][0], i + 2
        out.append((segs, i - 1, None if name == "_" else name)); return i


def scan(text, scope0):
    """Return [(scope, segments, line, bound name or None)] and {(scope, child)} of `mod child`."""
    text = strip(text)
    nl = [m.start() for m in re.finditer("\n", text)]
    toks = [(m.group(), bisect.bisect(nl, m.start()) + 1) for m in TOKEN.finditer(text)]
    toks += [(";", 0)] * 3                               # sentinels: lookahead never overruns
    paths, decls, stack, depth, i = [], set(), [], 0, 0  # stack: open inline `mod x {` (name, depth)
    while i < len(toks) - 3:
        t, line = toks[i]
        scope, prev = scope0 + tuple(name for name, _ in stack), toks[i - 1][0] if i else ""
        if t == "mod" and WORD.fullmatch(toks[i + 1][0]):
            decls.add((scope, toks[i + 1][0]))          # a declaration alone is not an edge
            if toks[i + 2][0] == "{":
                depth += 1; stack.append((toks[i + 1][0], depth)); i += 3; continue
        elif t == "use" and prev != "::":
            found = []
            i = parse_use(toks, i + 1, [], found)
            paths += [(scope, segs, toks[k][1], name) for segs, k, name in found]
            continue
        elif t == "{": depth += 1
        elif t == "}":
            if stack and stack[-1][1] == depth: stack.pop()
            depth -= 1
        elif WORD.fullmatch(t) and toks[i + 1][0] == "::" and prev != "::":
            segs, j = [t], i                             # inline path a::b::c (stops at ::< ::{)
            while toks[j + 1][0] == "::" and WORD.fullmatch(toks[j + 2][0]):
                segs.append(toks[j + 2][0]); j += 2
            paths.append((scope, segs, line, None)); i = j + 1; continue
        i += 1
    return paths, decls


def expand(scope, segs, aliases):
    """The absolute path (tuple) that `segs`, written in module `scope`, names; None if external."""
    head, rest = segs[0], segs[1:]
    if head in ("crate", "$crate"): base = ()
    elif head == "self": base = scope
    elif head == "super":
        base = scope[:-1]
        while rest and rest[0] == "super": base, rest = base[:-1], rest[1:]
    elif (scope, head) in aliases: base = aliases[(scope, head)]  # `mod x;` or `use …::x;`
    else: return None                                    # another crate, std, or a local item
    return base + tuple(s for s in rest if s != "self")


def check_crate(src):
    """Return (files, sccs, edges): edges maps (file_a, file_b) -> (first example 'file:line', count)."""
    files = sorted(os.path.relpath(os.path.join(d, f), src) for d, _, fs in os.walk(src) for f in fs if f.endswith(".rs"))
    if "lib.rs" in files and "main.rs" in files:
        files.remove("main.rs")                          # main.rs is then its own (bin) crate
    texts, path_of = {}, {}
    for f in files:
        with open(os.path.join(src, f), encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        cut = next((k for k, l in enumerate(lines) if l.startswith("#[cfg(test)]")), len(lines))
        texts[f] = "\n".join(lines[:cut])                # test-only code does not count
        parts = f[:-3].split(os.sep)
        path_of[f] = tuple(parts[:-1] if parts[-1] in ("mod", "lib", "main") else parts)
    for f in files:                                      # honour `#[path = "…"] mod x;`
        for target, name in PATH_MOD.findall(texts[f]):
            t = os.path.normpath(os.path.join(os.path.dirname(f), target))
            if t in path_of: path_of[t] = path_of[f] + (name,)
    modules = {p: f for f, p in path_of.items()}
    scanned = {f: scan(texts[f], path_of[f]) for f in files}
    aliases = {(s, x): s + (x,) for f in files for s, x in scanned[f][1]}
    changed = True
    while changed:                                       # names bound by `use` of a module
        changed = False
        for f in files:
            for scope, segs, _, name in scanned[f][0]:
                if name and (scope, name) not in aliases and expand(scope, segs, aliases) in modules:
                    aliases[(scope, name)] = expand(scope, segs, aliases); changed = True
    edges = {}
    for f in files:
        for scope, segs, line, _ in scanned[f][0]:
            full = expand(scope, segs, aliases)
            if full is None: continue
            target = next(modules[full[:k]] for k in range(len(full), -1, -1) if full[:k] in modules)
            if target != f:                              # self-edges are ignored
                ex, count = edges.get((f, target), (f"{f}:{line}", 0))
                edges[(f, target)] = (ex, count + 1)
    return files, tarjan(files, edges), edges


def tarjan(nodes, edges):
    """Strongly connected components of size >= 2 (iterative Tarjan)."""
    succ = {n: sorted(b for a, b in edges if a == n) for n in nodes}
    index, low, on, stack, sccs = {}, {}, set(), [], []
    for root in nodes:
        if root in index: continue
        work = [(root, 0)]
        while work:
            v, k = work.pop()
            if k == 0:
                index[v] = low[v] = len(index); stack.append(v); on.add(v)
            if k < len(succ[v]):
                work.append((v, k + 1)); w = succ[v][k]
                if w not in index: work.append((w, 0))
                elif w in on: low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:                       # v is the root of a component
                comp = []
                while not comp or comp[-1] != v:
                    comp.append(stack.pop()); on.discard(comp[-1])
                if len(comp) > 1: sccs.append(sorted(comp))
            if work: low[work[-1][0]] = min(low[work[-1][0]], low[v])
    return sorted(sccs, key=lambda c: (-len(c), c))


def main(dirs):
    failed = False
    for src in dirs:
        files, sccs, edges = check_crate(src)
        if not sccs:
            print(f"{src}: {len(files)} modules, no import circle"); continue
        failed = True
        print(f"{src}: {len(files)} modules, {len(sccs)} import circle(s) covering {sum(map(len, sccs))} files")
        for n, comp in enumerate(sccs, 1):
            print(f"  circle {n} ({len(comp)} files): " + " ".join(comp))
            for (a, b), (ex, count) in sorted(edges.items()):
                if a in comp and b in comp:
                    print(f"    {a} -> {b}  e.g. {os.path.join(src, ex)}" + (f" (+{count - 1} more)" if count > 1 else ""))
    return 1 if failed else 0


def self_test():
    """A temp crate: circle a -> b -> c -> a, acyclic d (+ d/e); then c's edge is cut."""
    sources = {
        "lib.rs": "mod a;\nmod b;\nmod c;\npub mod d;\npub use d::D;\n",
        "a.rs": "//! Docs naming crate::d::D do not count.\nuse crate::b::{f as _, self};\npub struct X;\n"
                "const S: &str = \"crate::d::D\";\n#[cfg(test)]\nmod tests { use crate::d::D; }\n",
        "b.rs": "pub fn f() {\n    let _c = '\"';\n    crate::c::g();\n}\n",
        "c.rs": "use crate::a::X;\npub fn g() {}\n",
        "d.rs": "pub mod e;\npub struct D(e::H);\n",
        os.path.join("d", "e.rs"): "pub struct H;\npub fn h() {}\n",
    }
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "d"))
        for name, body in sources.items():
            with open(os.path.join(tmp, name), "w") as fh: fh.write(body)
        run = lambda: subprocess.run([sys.executable, __file__, tmp], capture_output=True, text=True)
        _, sccs, edges = check_crate(tmp)
        assert sccs == [["a.rs", "b.rs", "c.rs"]], sccs
        assert edges[("b.rs", "c.rs")][0] == "b.rs:3" and edges[("lib.rs", "d.rs")][0] == "lib.rs:5", edges
        assert ("d.rs", os.path.join("d", "e.rs")) in edges and ("a.rs", "d.rs") not in edges, edges
        assert run().returncode == 1
        with open(os.path.join(tmp, "c.rs"), "w") as fh:  # cut the circle; path through a `use` alias
            fh.write("use crate::d;\npub fn g() { d::e::h() }\n")
        _, sccs, edges = check_crate(tmp)
        assert not sccs and ("c.rs", os.path.join("d", "e.rs")) in edges, edges
        result = run()
        assert result.returncode == 0 and "6 modules, no import circle" in result.stdout, result.stdout
    print("self-test passed")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]: sys.exit(self_test())
    if not sys.argv[1:]: sys.exit("usage: check-import-circles.py SRC_DIR... | --self-test")
    sys.exit(main(sys.argv[1:]))
