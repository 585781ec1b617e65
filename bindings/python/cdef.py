"""Cuts the cffi cdef out of include/tfnano.h, so the binding and the header cannot drift.

The header marks the region with TFN_CDEF_BEGIN / TFN_CDEF_END; inside it the only
non-C tokens are TFN_API and TFN_NODISCARD, which are deleted here, and comments and
preprocessor lines, which cffi's parser does not take.
"""
import re
from pathlib import Path

HEADER = Path(__file__).resolve().parents[2] / "include" / "tfnano.h"


def cdef_from_header(header_text: str) -> str:
    begin = header_text.index("TFN_CDEF_BEGIN")
    begin = header_text.index("\n", begin) + 1
    end = header_text.index("/* TFN_CDEF_END */")
    end = header_text.rindex("\n", 0, end)
    text = header_text[begin:end]
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"^\s*#[^\n]*$", "", text, flags=re.M)
    text = re.sub(r"\bTFN_API\s+", "", text)
    text = re.sub(r"\s*\bTFN_NODISCARD\b", "", text)
    return "\n".join(line for line in text.splitlines() if line.strip())


def read_cdef(header: Path = HEADER) -> str:
    return cdef_from_header(header.read_text(encoding="utf-8"))
