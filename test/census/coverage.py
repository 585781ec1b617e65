"""Coverage of the census: every name public input-pipeline code uses, checked against tfnano.

    python test/census/coverage.py            # print the table (names used by >= 3 files)
    python test/census/coverage.py --write    # rewrite the table in docs/compat.md
    python test/census/coverage.py --summary  # counts and the missing input-side names

census.json holds the names and in how many files / repositories each was seen (README.md
says how it was made); status.json says which names are model side (out of scope, with
the reason). Whether tfnano has a name is looked up live, so the table follows the code.
"""
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DOC = ROOT / "docs" / "compat.md"
BEGIN = "<!-- census-table:begin (test/census/coverage.py --write) -->"
END = "<!-- census-table:end -->"
MIN_FILES = 3

IMPLEMENTED = "implemented"
MISSING = "missing"
NOT_IN_TF = "not in TF 2.21"


def load():
    census = json.loads((HERE / "census.json").read_text())
    status = json.loads((HERE / "status.json").read_text())
    return census, status


def _receivers(tf):
    """Instances whose members the census counts as Dataset.x, Tensor.x, ..."""
    return {
        "Dataset": tf.data.Dataset,
        "Tensor": tf.constant(1),
        "SparseTensor": tf.sparse.SparseTensor([[0]], [1], [1]),
        "RaggedTensor": tf.ragged.constant([[1]]),
        "Example": tf.train.Example(),
    }


# Proto fields reached through an Example (ex.features.feature[k].int64_list ...).
_EXAMPLE_FIELDS = {"features", "feature", "int64_list", "bytes_list", "float_list",
                   "feature_lists", "feature_list", "context", "value", "kind"}


def has_name(tf, name, receivers=None):
    """True when `name` (tf.a.b or Dataset.m style) resolves on the module `tf`."""
    head, *rest = name.split(".")
    if head == "tf":
        obj = tf
    else:
        receivers = receivers if receivers is not None else _receivers(tf)
        if head not in receivers:
            return False
        obj = receivers[head]
        if head == "Example" and rest and rest[0] in _EXAMPLE_FIELDS:
            obj = getattr(obj, "features")
            if rest[0] == "features":
                rest = rest[1:]
            else:
                return _example_field(tf, rest[0])
    for part in rest:
        try:
            obj = getattr(obj, part)
        except Exception:
            return False
    return True


def _example_field(tf, field):
    ex = tf.train.Example()
    if field in ("feature",):
        return hasattr(ex.features, "feature")
    if field in ("int64_list", "bytes_list", "float_list", "value", "kind"):
        f = tf.train.Feature(int64_list=tf.train.Int64List(value=[1]))
        return hasattr(f, field) or field == "kind"
    se = tf.train.SequenceExample()
    if field in ("feature_lists", "context"):
        return hasattr(se, field)
    if field == "feature_list":
        return hasattr(se.feature_lists, "feature_list")
    return False


def classify(entry, status, tf, receivers):
    """(status, reason) of one census entry."""
    name = entry["name"]
    exact = status["names"].get(name)
    if has_name(tf, name, receivers):
        return IMPLEMENTED, ""
    if exact:
        return exact["status"], exact.get("reason", "")
    if not entry.get("in_tf_2_21", True):
        return NOT_IN_TF, "TensorFlow 2.21 has no such name either (TF1 or removed API)"
    for prefix, reason in status["model_side"]:
        if name == prefix or name.startswith(prefix + ".") or (
                prefix.endswith(".") and name.startswith(prefix)):
            return "not in scope", reason
    return MISSING, status["known_missing"].get(name, "")


def table_rows(census=None, status=None):
    import tfnano as tf
    if census is None:
        census, status = load()
    receivers = _receivers(tf)
    rows = []
    for e in census["names"]:
        if e["files"] < MIN_FILES:
            continue
        st, reason = classify(e, status, tf, receivers)
        rows.append((e["name"], e["files"], e["repos"], st, reason))
    return rows


def render(rows, n_files, n_repos):
    inside = [r for r in rows if r[3] in (IMPLEMENTED, MISSING)]
    done = sum(r[3] == IMPLEMENTED for r in inside)
    lines = [
        BEGIN,
        "",
        f"Census of {n_files} public files from {n_repos} repositories (how it was made: "
        "`test/census/README.md`). {0} names are used by {1} or more files; of the {2} that "
        "belong to the input side, tfnano implements {3} ({4:.1f}%). Regenerate with "
        "`python test/census/coverage.py --write`.".format(
            len(rows), MIN_FILES, len(inside), done, 100.0 * done / max(len(inside), 1)),
        "",
        "| name | files | repos | status |",
        "|---|---:|---:|---|",
    ]
    for name, files, repos, st, reason in rows:
        cell = st if not reason else f"{st}: {reason}"
        lines.append(f"| `{name}` | {files} | {repos} | {cell} |")
    lines += ["", END]
    return "\n".join(lines)


def current_table():
    census, status = load()
    rows = table_rows(census, status)
    return render(rows, len(census["files"]), len({f["repo"] for f in census["files"]})), rows


def doc_table():
    text = DOC.read_text()
    m = re.search(re.escape(BEGIN) + ".*?" + re.escape(END), text, re.S)
    return m.group(0) if m else None


def write_doc(table):
    text = DOC.read_text()
    if doc_table() is None:
        raise SystemExit(f"{DOC} has no census table markers")
    text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: table, text, flags=re.S)
    DOC.write_text(text)


def main(argv):
    table, rows = current_table()
    if "--write" in argv:
        write_doc(table)
    elif "--summary" in argv:
        from collections import Counter
        print(Counter(r[3] for r in rows))
        for r in rows:
            if r[3] == MISSING:
                print(f"{r[1]:5d} {r[2]:3d} {r[0]}  {r[4]}")
    else:
        print(table)


if __name__ == "__main__":
    main(sys.argv[1:])
