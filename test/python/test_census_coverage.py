"""The census of public input-pipeline code (test/census): every input-side name used by
3 or more files is implemented, model side with a reason, or listed as known missing with
a reason; the table in docs/compat.md is the one coverage.py computes today."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _coverage():
    spec = importlib.util.spec_from_file_location("census_coverage",
                                                  ROOT / "test" / "census" / "coverage.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


cov = _coverage()


def test_census_is_large_enough():
    census, _ = cov.load()
    assert len(census["files"]) >= 300
    assert len({f["repo"] for f in census["files"]}) >= 10
    assert all(e["files"] >= 1 and e["repos"] <= e["files"] for e in census["names"])


def test_every_input_side_name_is_implemented_or_accounted_for():
    census, status = cov.load()
    rows = cov.table_rows(census, status)
    unexplained = [r[0] for r in rows if r[3] == cov.MISSING and not r[4]]
    assert unexplained == [], "input-side names without implementation or reason: %s" % unexplained


def test_known_missing_list_has_no_implemented_names():
    census, status = cov.load()
    rows = {r[0]: r[3] for r in cov.table_rows(census, status)}
    stale = [n for n in status["known_missing"] if rows.get(n) == cov.IMPLEMENTED]
    assert stale == [], "implemented now, drop from known_missing: %s" % stale


def test_model_side_names_stay_out_with_attribute_error():
    import tfnano as tf
    for name in ("GradientTape", "Variable", "optimizers"):
        try:
            getattr(tf, name)
        except AttributeError as e:
            assert "tfnano" in str(e)
        else:
            raise AssertionError("tfnano.%s should not exist" % name)


def test_docs_table_is_current():
    table, _ = cov.current_table()
    assert cov.doc_table() == table, "run: python test/census/coverage.py --write"
