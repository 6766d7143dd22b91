#!/usr/bin/env python3
"""Fails when the modules of a crate import each other in a circle.

Usage: scripts/check-circles.py [--through-reexports] CRATE [CRATE ...]
       scripts/check-circles.py --self-test

CRATE is a crate's folder (the one with Cargo.toml; `CRATE/src` is accepted too). Each of its
crate roots (`src/lib.rs`, `src/main.rs`, `src/bin/*.rs`) is checked on its own: the module tree
is read from the root by following `mod name;` declarations (`#[path]` honoured), so a file no
root declares is not part of the crate.

A module is one file. Module A depends on module B when A's code names B through a `use` or a
`crate::`/`super::`/`self::` path; the longest module prefix of the path counts. A path that
starts with a child module's name (`use child::X`, the 2018 relative form) is not counted: with
it, every parent that re-exports its children (`pub use child::X`) and a child that takes a
sibling's item through the parent (`use super::X`) would make a circle. For the same reason a
module's re-export of its own descendant's item (`pub use self::child::X`) is no edge.
With `--through-reexports`, a path to an item a module re-exports from its descendant counts as
a path to that descendant: children that take each other's items through their parent
(`use super::X` both ways) are then a circle too. Test code is not
read: an item under `#[cfg(test)]` (an inline `mod tests { ... }`, a `use`, a function) is
skipped by matching its braces, and a module it declares (`#[cfg(test)] mod tests;`) is left out
of the tree. Comments and string literals are ignored. An inline `mod name { ... }` belongs to its
file's module, with `self`/`super` resolved from where it sits. `mod b;` declarations are not
edges. Every strongly connected set of two or more modules is printed; the exit code is 1 if
there is one.
"""
import glob
import os
import re
import sys
import tempfile

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def scrub(src):
    """`src` with comments removed and string and char literals emptied (`""`, `' '`); the
    `#[path = "..."]` attributes keep their string."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            end = src.find("\n", i)
            i = n if end < 0 else end
        elif src.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if src.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif src.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            out.append(" ")
        elif re.match(r'b?r#*"', src[i : i + 260]) and (i == 0 or not re.match(r"\w", src[i - 1])):
            head = re.match(r'b?r(#*)"', src[i:])
            close = '"' + head.group(1)
            end = src.find(close, i + head.end())
            i = n if end < 0 else end + len(close)
            out.append('""')
        elif c == '"' or (c == "b" and src.startswith('b"', i) and not re.match(r"\w", src[i - 1 : i] or " ")):
            start = i + (2 if c == "b" else 1)
            j = start
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            literal = src[start:j]
            i = j + 1
            keep = re.search(r"#\[\s*path\s*=\s*$", "".join(out[-40:]))
            out.append('"' + literal + '"' if keep else '""')
        elif c == "'":
            # A char literal ('a', '\n', '\u{1F600}', '"') or a lifetime ('a, 'static).
            lit = re.match(r"'(?:\\(?:u\{[0-9A-Fa-f]+\}|x[0-9A-Fa-f]{2}|.)|[^\\'])'", src[i:])
            if lit:
                out.append("' '")
                i += lit.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def block_end(code, open_at):
    """Index just past the `}` matching the `{` at `open_at`."""
    depth = 0
    for j in range(open_at, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(code)


def item_end(code, start):
    """Index just past the item starting at `start`: its `;` or its braced body, whichever
    comes first (an attribute's brackets or a type's parentheses are passed); a struct field or
    field value ends at its `,`, and nothing runs past the enclosing block's `}`."""
    field = re.match(r"\s*(?:pub(?:\s*\([^)]*\))?\s+)?" + IDENT + r"\s*:(?!:)", code[start:])
    depth = 0
    for j in range(start, len(code)):
        ch = code[j]
        if depth == 0 and ch == "}":
            return j
        if field and depth == 0 and ch == ",":
            return j + 1
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and ch == ";":
            return j + 1
        elif depth == 0 and ch == "{":
            return block_end(code, j)
    return len(code)


def drop_test_items(code):
    """`code` without the items under `#[cfg(test)]` (the attribute included)."""
    while True:
        match = re.search(r"#\[\s*cfg\s*\(\s*test\s*\)\s*\]", code)
        if not match:
            return code
        code = code[: match.start()] + " " + code[item_end(code, match.end()) :]


def split_inline(code, inline=()):
    """[(inline module path, text)]: the file's own text and each inline `mod name { ... }`'s."""
    parts, rest = [], code
    while True:
        match = re.search(r"\bmod\s+(" + IDENT + r")\s*\{", rest)
        if not match:
            parts.insert(0, (inline, rest))
            return parts
        end = block_end(rest, match.end() - 1)
        parts += split_inline(rest[match.end() : end - 1], inline + (match.group(1),))
        rest = rest[: match.start()] + " " + rest[end:]


def read_code(path):
    with open(path, encoding="utf-8") as f:
        return drop_test_items(scrub(f.read()))


def child_file(path, is_dir_owner, inline, name, explicit):
    """The file of `mod name;` declared in `path` (inside the inline modules `inline`)."""
    folder = os.path.dirname(path)
    if not is_dir_owner:
        folder = os.path.join(folder, os.path.basename(path)[:-3])
    folder = os.path.join(folder, *inline)
    if explicit:
        return os.path.normpath(os.path.join(folder if inline else os.path.dirname(path), explicit))
    for candidate in (os.path.join(folder, name + ".rs"), os.path.join(folder, name, "mod.rs")):
        if os.path.exists(candidate):
            return candidate
    return None


def module_tree(root_file):
    """Module path (tuple) -> (file, [(inline path, code)]), read from a crate root."""
    tree, todo = {}, [((), root_file, True)]
    while todo:
        mod, path, is_dir_owner = todo.pop()
        if mod in tree or not os.path.exists(path):
            continue
        parts = split_inline(read_code(path))
        tree[mod] = (path, parts)
        for inline, text in parts:
            decl = r"(?:#\[\s*path\s*=\s*\"([^\"]*)\"\s*\]\s*)?(?:pub(?:\s*\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;"
            for match in re.finditer(decl, text):
                explicit, name = match.group(1), match.group(2)
                child = child_file(path, is_dir_owner, inline, name, explicit)
                if child:
                    owner = explicit is None and os.path.basename(child) == "mod.rs"
                    todo.append((mod + inline + (name,), child, owner))
    return tree


def resolve(mods, current, path, facades=None, relative=False, seen=()):
    """The module a path lands in, or None (another crate, a local item). With `facades`, an
    item a module re-exports from its own descendant lands in that descendant; with `relative`,
    a path may start with a child module's name."""
    segs = path.split("::")
    if segs[0] in ("crate", "$crate"):
        base, segs = [], segs[1:]
    elif segs[0] == "self":
        base, segs = list(current), segs[1:]
    elif segs[0] == "super":
        base, segs = list(current[:-1]), segs[1:]
        while segs and segs[0] == "super":
            base, segs = base[:-1], segs[1:]
    elif relative and tuple(current) + (segs[0],) in mods:
        base = list(current)
    else:
        return None
    best, used = None, 0
    for i in range(len(segs) + 1):
        candidate = tuple(base + segs[:i])
        if candidate in mods:
            best, used = candidate, i
    if facades and best is not None and used < len(segs):
        origin = facades.get(best, {}).get(segs[used])
        if origin is not None and (best, segs[used]) not in seen:
            return resolve(mods, best, origin, facades, True, seen + ((best, segs[used]),)) or best
    return best


def reexports(text):
    """[(path, name)] of the `pub use` items of a module's text (`pub(crate)` included)."""
    found = []
    for use in re.finditer(r"\bpub\b(?:\s*\([^)]*\))?\s*use\s+([^;]+);", text):
        for path in use_paths(use.group(1)):
            name = path.split("::")[-1]
            found.append((path, name))
    return found


def facade_map(tree):
    """Module -> {name: path} of the items it re-exports from its own descendants."""
    facades = {}
    for mod, (_, parts) in tree.items():
        for inline, text in parts:
            for path, name in reexports(text):
                target = resolve(tree, mod + inline, path, relative=True)
                if target is not None and target != mod and target[: len(mod)] == mod:
                    facades.setdefault(mod, {})[name] = path if inline == () else None
    return {m: {n: p for n, p in names.items() if p} for m, names in facades.items()}


def use_paths(body):
    """The paths of one `use` body, braces expanded (nested braces keep their prefix)."""
    body = re.sub(r"\s+", " ", body).strip()
    body = re.sub(r"\s*::\s*", "::", body)
    match = re.match(r"^(.*?)::\{(.*)\}$", body, re.S)
    if not match:
        return [body.split(" as ")[0].strip()]
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
    found = []
    for it in (i.strip() for i in items):
        if it == "self":
            found.append(prefix)
        elif "::{" in it:
            found += use_paths(prefix + "::" + it)
        elif it:
            found.append(prefix + "::" + it.split(" as ")[0].strip())
    return found


def edges(tree, through_reexports=False):
    graph = {m: set() for m in tree}
    facades = facade_map(tree) if through_reexports else None
    for mod, (_, parts) in tree.items():
        for inline, text in parts:
            current = mod + inline
            own_facade = set(reexports(text))
            paths = [p for u in re.finditer(r"\buse\s+([^;]+);", text) for p in use_paths(u.group(1))]
            text = re.sub(r"\buse\s+[^;]+;", " ", text)
            paths += re.findall(r"(?<![\w:])\$?" + IDENT + r"(?:\s*::\s*" + IDENT + r")+", text)
            for p in paths:
                p = re.sub(r"\s+", "", p)
                target = resolve(tree, current, p, facades)
                if target is None or target == mod:
                    continue
                if (p, p.split("::")[-1]) in own_facade and target[: len(mod)] == mod:
                    continue  # the module re-exports its own descendant's item: no dependency
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
        for w in sorted(graph[v]):
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
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def crate_roots(crate):
    """The root files of a crate folder (or of its `src` folder)."""
    if os.path.basename(os.path.normpath(crate)) == "src" and not os.path.exists(os.path.join(crate, "Cargo.toml")):
        crate = os.path.dirname(os.path.normpath(crate))
    src = os.path.join(crate, "src")
    roots = [os.path.join(src, f) for f in ("lib.rs", "main.rs")]
    roots += sorted(glob.glob(os.path.join(src, "bin", "*.rs")))
    roots += sorted(glob.glob(os.path.join(src, "bin", "*", "main.rs")))
    return [r for r in roots if os.path.exists(r)]


def check(crates, through_reexports=False, out=sys.stdout):
    """Prints each circle of the crates' roots; returns how many there are (-1: a crate has no
    root file)."""
    total = 0
    for crate in crates:
        roots = crate_roots(crate)
        if not roots:
            print(f"{crate}: no src/lib.rs, src/main.rs or src/bin/*.rs", file=out)
            return -1
        for root in roots:
            for circle in circles(edges(module_tree(root), through_reexports)):
                print(f"{root}: import circle: {', '.join(circle)}", file=out)
                total += 1
    return total


SELF_TEST = {
    # name: ({file: text}, the circles expected)
    "`mod tests;` above the imports does not end the scan": (
        {
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": "#[cfg(test)]\nmod tests;\n\nuse crate::b::B;\npub struct A;\n",
            "a/tests.rs": "use super::*;\n",
            "b.rs": "use crate::a::A;\npub struct B;\n",
        },
        [["a", "b"]],
    ),
    "an inline test module is skipped by its braces, the code after it is read": (
        {
            "lib.rs": "pub mod a;\npub mod b;\n",
            "a.rs": "#[cfg(test)]\nmod tests {\n    use crate::b::B;\n    fn f() { let s = \"}\"; }\n}\n\nfn g() -> crate::b::B { todo!() }\n",
            "b.rs": "use crate::a;\npub struct B;\n",
        },
        [["a", "b"]],
    ),
    "test-only code makes no edge": (
        {
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": "#[cfg(test)]\nmod tests {\n    use crate::b::B;\n}\n#[cfg(test)]\nuse crate::b::B;\n#[cfg(test)]\nfn t() { crate::b::f() }\n",
            "b.rs": "use crate::a;\n// use crate::b;\n/* crate::a::x */\nconst S: &str = \"crate::a::y\";\n",
        },
        [],
    ),
    "super and self paths in nested folders; a parent's relative re-export is no edge": (
        {
            "lib.rs": "pub mod outer;\n",
            "outer/mod.rs": "mod inner;\nmod other;\npub use inner::Thing;\nuse self::other::h;\n",
            "outer/inner.rs": "pub struct Thing;\nfn f() { self::g(); super::super::outer::other::h(); }\nfn g() {}\n",
            "outer/other.rs": "use super::inner::{self as i, Thing as T};\npub fn h() {}\n",
        },
        [["outer::inner", "outer::other"]],
    ),
    "super inside an inline module stays in its file": (
        {
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": "mod imp {\n    use super::X;\n}\nstruct X;\nuse crate::b::Y;\n",
            "b.rs": "pub struct Y;\n",
        },
        [],
    ),
    "a child taking an item through its re-exporting parent is no circle": (
        {
            "lib.rs": "mod outer;\n",
            "outer/mod.rs": "mod a;\nmod b;\npub use self::a::A;\n",
            "outer/a.rs": "pub struct A;\n",
            "outer/b.rs": "use super::A;\n",
        },
        [],
    ),
    "--through-reexports: siblings that meet through their parent's re-exports": (
        {
            "lib.rs": "mod outer;\n",
            "outer/mod.rs": "mod a;\nmod b;\npub use a::A;\npub(crate) use self::b::B;\n",
            "outer/a.rs": "use super::B;\npub struct A;\n",
            "outer/b.rs": "pub struct B(super::A);\n",
        },
        [["outer::a", "outer::b"]],
    ),
    "a file no root declares is not read": (
        {
            "lib.rs": "mod a;\n",
            "a.rs": "use crate::stray::S;\n",
            "stray.rs": "use crate::a::A;\n",
        },
        [],
    ),
    "#[path] modules and binary roots": (
        {
            "main.rs": "#[path = \"shared/x.rs\"]\nmod x;\nmod y;\n",
            "shared/x.rs": "use crate::y;\n",
            "y.rs": "pub fn f() { crate::x::g() }\n",
        },
        [["x", "y"]],
    ),
}


def self_test():
    failures = 0
    for name, (files, expected) in SELF_TEST.items():
        with tempfile.TemporaryDirectory() as crate:
            open(os.path.join(crate, "Cargo.toml"), "w").close()
            for rel, text in files.items():
                path = os.path.join(crate, "src", rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
            (root,) = crate_roots(crate)
            found = circles(edges(module_tree(root), name.startswith("--through-reexports")))
        if found != expected:
            print(f"self-test failed: {name}: found {found}, expected {expected}")
            failures += 1
    print(f"check-circles self-test: {len(SELF_TEST) - failures} passed, {failures} failed")
    return 1 if failures else 0


def main():
    args = sys.argv[1:]
    if args == ["--self-test"]:
        return self_test()
    through = args[:1] == ["--through-reexports"]
    args = args[1:] if through else args
    if not args or any(a.startswith("-") for a in args):
        print("\n".join(__doc__.strip().splitlines()[2:5]), file=sys.stderr)
        return 2
    return 1 if check(args, through) else 0


if __name__ == "__main__":
    sys.exit(main())
