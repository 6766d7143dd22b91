#!/usr/bin/env python3
"""Fails when the modules of a crate import each other in a circle.

Usage: scripts/check-circles.py CRATE/src [CRATE/src ...]

A module is one file (`a/b.rs` or `a/b/mod.rs` is `a::b`). Module A depends on module B when A's
code outside its `#[cfg(test)] mod tests` names B through a `use` or a `crate::`/`super::`/`self::`
path (the longest module prefix of the path counts). `mod b;` declarations are not edges. Every
strongly connected set of two or more modules is printed; the exit code is 1 if there is one.
"""
import os
import re
import sys


def modules(root):
    """Module path (tuple) -> file."""
    found = {}
    for folder, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(folder, name)
            parts = os.path.relpath(path, root)[:-3].split(os.sep)
            if parts[-1] == "mod":
                parts = parts[:-1]
            if parts in (["lib"], ["main"]):
                parts = []
            found[tuple(parts)] = path
    return found


def resolve(mods, current, path):
    """The module a `crate::`/`super::`/`self::` path lands in, or None."""
    segs = path.split("::")
    if segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] == "self":
        base, segs = list(current), segs[1:]
    elif segs[0] == "super":
        base, segs = list(current[:-1]), segs[1:]
        while segs and segs[0] == "super":
            base, segs = base[:-1], segs[1:]
    else:
        return None
    best = None
    for i in range(len(segs) + 1):
        candidate = tuple(base + segs[:i])
        if candidate in mods:
            best = candidate
    return best


def use_paths(body):
    """The paths of one `use` body, braces expanded (nested braces keep their prefix)."""
    body = re.sub(r"\s+", "", body)
    match = re.match(r"^(.*?)::\{(.*)\}$", body)
    if not match:
        return [body.split("as")[0] if "::" in body else body]
    prefix, items, depth, item = match.group(1), [], 0, ""
    for ch in match.group(2):
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            items.append(item)
            item = ""
        else:
            item += ch
    items.append(item)
    return [prefix if it == "self" else prefix + "::" + it.split("::{")[0] for it in items if it]


def edges(mods):
    graph = {m: set() for m in mods}
    for mod, path in mods.items():
        with open(path, encoding="utf-8") as f:
            src = f.read()
        src = re.split(r"#\[cfg\(test\)\]\s*mod\s+tests", src)[0]
        src = re.sub(r"//[^\n]*", "", src)
        paths = [p for u in re.finditer(r"\buse\s+([^;]+);", src) for p in use_paths(u.group(1))]
        paths += re.findall(r"\b(?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+", src)
        for p in paths:
            target = resolve(mods, mod, p)
            if target is not None and target != mod:
                graph[mod].add(target)
    return graph


def circles(graph):
    """Tarjan's strongly connected components of two or more modules."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted("::".join(m) or "crate" for m in comp))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return found


def main():
    total = 0
    for root in sys.argv[1:]:
        for circle in circles(edges(modules(root))):
            print(f"{root}: import circle: {', '.join(circle)}")
            total += 1
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
