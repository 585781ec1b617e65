"""The package's layering rules (bindings/python/tfnano/README.md), read from the
source: only tfnano._c calls into lib; no import cycle but the listed lazy doors; no
module takes another package's private name. Static: every ``import`` and ``from``
statement is read with ast, function-local ones included."""
import ast
import pathlib
import re

import tfnano

ROOT = pathlib.Path(tfnano.__file__).parent
PKG = ROOT.relative_to(ROOT.parent)


def _modules():
    out = {}
    for p in sorted(ROOT.rglob("*.py")):
        parts = list(p.relative_to(ROOT.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        out[".".join(parts)] = (p, is_pkg)
    return out


MODULES = _modules()
# compiled modules (tfnano._native, the cffi extension): imported, never importing
EXTENSIONS = {"tfnano." + p.name.split(".")[0] for p in ROOT.glob("*.so")} | {"tfnano._native"}


def _package(mod):
    return mod if MODULES[mod][1] else mod.rpartition(".")[0]


def _imports():
    """(importer, imported module, name taken from it or None, top level?) for every
    import of a tfnano module."""
    edges = []
    for mod, (path, _) in MODULES.items():
        pkg = _package(mod)

        def walk(node, top):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.Import):
                    edges.extend((mod, a.name, None, top) for a in child.names
                                 if a.name.split(".")[0] == "tfnano")
                elif isinstance(child, ast.ImportFrom):
                    if child.level:
                        base = pkg.split(".")[:len(pkg.split(".")) - child.level + 1]
                        target = ".".join(base + ([child.module] if child.module else []))
                    else:
                        target = child.module or ""
                    if target.split(".")[0] == "tfnano":
                        for a in child.names:
                            sub = target + "." + a.name
                            edges.append((mod, sub, None, top) if sub in MODULES or
                                         sub in EXTENSIONS else (mod, target, a.name, top))
                walk(child, top and not isinstance(
                    child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))
        walk(ast.parse(path.read_text(), str(path)), True)
    return edges


EDGES = _imports()


def _cycles(edges):
    """The strongly connected components (more than one module) of the graph."""
    graph = {m: set() for m in MODULES}
    for a, b, _, _ in edges:
        if b in graph and a != b:
            graph[a].add(b)
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):  # Tarjan's algorithm, iteratively deep enough for this package
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


# ---- 1. tfnano._c is the only door to lib

# Modules that still call lib.tfn_* themselves: their C calls are to move into _c
# (issue 22). The list may only shrink.
LIB_CALLERS_LEFT = {
    "_parsing.py", "io/_kinds.py",
    "arrow/_features.py",
    "arrow/_sequence.py", "arrow/_to_arrow.py",
}


def _lib_callers():
    return {str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")
            if re.search(r"\blib\.tfn_", p.read_text())}


def test_only_c_calls_lib():
    outside = {f for f in _lib_callers() if not f.startswith("_c/")}
    assert outside <= LIB_CALLERS_LEFT, "new lib.tfn_ calls outside tfnano/_c: %s" % sorted(
        outside - LIB_CALLERS_LEFT)
    assert outside == LIB_CALLERS_LEFT, "no longer calling lib, drop from the list: %s" % \
        sorted(LIB_CALLERS_LEFT - outside)


# ---- 2. import cycles

# Function-local imports that close a cycle (lazy doors: a module reaching, at call
# time, one that imports it). tf.data's own kind: Dataset's methods open their op
# modules (data.dataset -> data.ops.*). The others are to go (issue 22: fusion in
# data/optimize.py, parsing in io/parsing/). Any other cycle fails.
LAZY_DOORS = {
    ("tfnano._parsing", "tfnano.io._kinds"),
    ("tfnano._tensor", "tfnano.ops._operators"),
    ("tfnano._tensor", "tfnano.ops.array_ops"),
    ("tfnano.arrow._to_arrow", "tfnano.arrow._sequence"),
    ("tfnano.data.dataset", "tfnano.data.ops.batch"),
    ("tfnano.data.dataset", "tfnano.data.execute"),
    ("tfnano.data.dataset", "tfnano.data.optimize"),
    ("tfnano.data.dataset", "tfnano.data.ops.group_by_window"),
    ("tfnano.data.dataset", "tfnano.data.ops.padded_batch"),
    ("tfnano.data.dataset", "tfnano.data.ops.ragged_batch"),
    ("tfnano.data.dataset", "tfnano.data.ops.sample"),
    ("tfnano.data.dataset", "tfnano.data.ops.save_load"),
    ("tfnano.data.dataset", "tfnano.data.ops.window"),
    ("tfnano.data.structured_function", "tfnano.data.ops.batch"),
    ("tfnano.dtypes", "tfnano._tensor"),
    ("tfnano.ops.lookup_ops", "tfnano.ops.lookup_experimental"),
}

def test_no_import_cycle_but_the_lazy_doors():
    kept = [e for e in EDGES if (e[0], e[1]) not in LAZY_DOORS]
    assert _cycles(kept) == []


def test_lazy_doors_are_function_local():
    top = {(a, b) for a, b, _, t in EDGES if t}
    assert not (LAZY_DOORS & top)
    assert LAZY_DOORS <= {(a, b) for a, b, _, _ in EDGES}, "a listed door is gone: drop it"


# ---- 3. private names stay in their package

def _private_imports():
    """(importer, what) for every private name (one leading underscore) imported from
    a module of another package ("module:name"), and every private module taken from
    outside the package that holds it. tfnano._c's public names are the bridge's API;
    its private ones count as any other."""
    out = set()
    for a, b, name, _ in EDGES:
        pkg = _package(a)
        if name and name.startswith("_") and not name.startswith("__"):
            if pkg != _package(b):
                out.add((a, "%s:%s" % (b, name)))
            continue
        parts = b.split(".")
        for i, part in enumerate(parts[1:], 1):
            if part.startswith("_") and not part.startswith("__"):
                holder = ".".join(parts[:i])
                if pkg != holder and not pkg.startswith(holder + "."):
                    out.add((a, b))
                break
    return out


# Imports of another package's private name that are still there (issue 22): the
# list may only shrink.
PRIVATE_IMPORTS_LEFT = {
    ("tfnano._parsing", "tfnano.io._kinds"),
    ("tfnano._tensor", "tfnano.ops._operators"),
    ("tfnano._tensor", "tfnano.ops.array_ops:_check_index"),
    ("tfnano.arrow._to_arrow", "tfnano._parsing:_Records"),
    ("tfnano.beam._read", "tfnano.arrow._reader"),
    ("tfnano.beam._transforms", "tfnano.arrow._from_arrow"),
    ("tfnano.cli._reshard", "tfnano.io._shards"),
    ("tfnano.dask", "tfnano.arrow._from_arrow"),
    ("tfnano.dask", "tfnano.arrow._reader"),
    ("tfnano.data.native", "tfnano.image._batch"),
    ("tfnano.data.native", "tfnano.image._ops:_jpeg_kwargs"),
    ("tfnano.io._sequence", "tfnano.ragged:_check_equal"),
    ("tfnano.io.tf_record", "tfnano._tensor:_infer"),
    ("tfnano.ops._common", "tfnano._tensor:_infer"),
    ("tfnano.ops._common", "tfnano._trace:_leaves"),
    ("tfnano.ops._common", "tfnano._trace:_map"),
    ("tfnano.ops.control_flow", "tfnano._trace:_Op"),
    ("tfnano.ops.control_flow", "tfnano._trace:_leaves"),
    ("tfnano.ops.control_flow", "tfnano._trace:_map"),
    ("tfnano.ops.control_flow", "tfnano._trace:_pairs"),
    ("tfnano.signal", "tfnano.ops._common"),
    ("tfnano.sparse", "tfnano._tensor:_infer"),
    ("tfnano.torch._source", "tfnano._parsing:_Records"),
}


def test_no_new_private_import_across_packages():
    got = _private_imports()
    assert got <= PRIVATE_IMPORTS_LEFT, sorted(got - PRIVATE_IMPORTS_LEFT)
    assert got == PRIVATE_IMPORTS_LEFT, "fixed, drop from the list: %s" % sorted(
        PRIVATE_IMPORTS_LEFT - got)


def test_graph_sees_the_package():
    # the reader finds the bridge and its users (a broken walk would pass the tests above)
    assert "tfnano._c.record" in MODULES
    assert any(b == "tfnano._c.record" for _, b, _, _ in EDGES)
