"""Student-derived text made safe to show: one convention, applied at every edge where text leaves the grader.

Exception messages, file names and submission (folder) names come from students. Shown verbatim they
could drive a TA's terminal (OSC/CSI escape sequences: window titles, screen clears, hyperlinks), hide
or reorder text (bidirectional overrides), crash a UTF-8 writer (lone surrogates), make junit.xml
ill-formed (NUL and most C0 characters are illegal in XML 1.0) or run as a spreadsheet formula.

The convention, everywhere (CLI, results.json, junit.xml, the gradebook, grades.csv, HTML reports):
every unsafe character is replaced by its backslash escape as Python's `repr` writes it — `\\x1b`
for a code point below U+0100 (`\\t`, `\\n`, `\\r` for those three), `\\u202e` / `\\ud800` above —
so the student and the TA see that something was there and what it was. Unsafe means: C0 controls
except newline and tab, DEL, C1 controls, every surrogate code point, the noncharacters U+FFFE and
U+FFFF, and the bidirectional embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069).
The result is printable, encodes to UTF-8 and is legal XML 1.0 character data. The escaping is for
display only: it is not meant to be reversed (a backslash already in the text is left alone).

Names and other one-line fields (`one_line`) also escape newline, tab and the Unicode line and
paragraph separators, so a name can never start a forged line. Spreadsheet cells (`csv_cell`) are
one-line text with OWASP's formula neutralisation on top.
Text shown as markdown (Gradescope's `md` output) sits in a fenced code block (`md_literal`), so
it is never read as markup.

Call these at the edges (writers and printers), not where text is produced.
"""

from __future__ import annotations

import re
from typing import Any

#: Characters `printable` escapes (see the module docstring).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\u202a-\u202e\u2066-\u2069]")
#: Characters `one_line` escapes as well: everything that breaks a line, and tab.
_UNSAFE_IN_LINE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\u2028\u2029\u202a-\u202e\u2066-\u2069]")
#: First characters that make a spreadsheet cell a formula (OWASP CSV injection), plus their fullwidth forms.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
#: Characters Python's repr writes by name.
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def escape_char(char: str) -> str:
    """The visible replacement of one unsafe character: `\\t`, `\\n`, `\\r`, else `\\xNN` below U+0100,
    else `\\uNNNN`."""
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _escape_match(match: re.Match[str]) -> str:
    return escape_char(match.group())


def printable(text: str) -> str:
    """`text` with every unsafe character escaped; newline and tab are kept. Idempotent."""
    return _UNSAFE.sub(_escape_match, text)


def one_line(text: str) -> str:
    """`text` safe as a single line (a name, a table cell): `printable`, and newline and tab escaped too."""
    return _UNSAFE_IN_LINE.sub(_escape_match, text)


def clean(value: Any) -> Any:
    """`value` (JSON-like: dicts, lists, tuples, strings, numbers) with `printable` applied to every string,
    dictionary keys included. Other values are returned unchanged."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {clean(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(clean(v) for v in value)
    return value


def csv_cell(value: Any) -> str:
    """One spreadsheet cell. A number is written as a number (`{:g}`, never quoted); any other value is
    one-line text, prefixed with a single quote `'` when it would start with a formula character
    (`=`, `+`, `-`, `@`, tab, carriage return, or their fullwidth forms), as OWASP recommends."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:g}"
    text = one_line("" if value is None else str(value))
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def md_literal(text: str) -> str:
    """`text` (made `printable`) as a markdown fenced code block, for output rendered as markdown
    (Gradescope's `md`): shown verbatim, never as markup. The fence is longer than the longest run of
    backticks in `text`, so no line of `text` can close it (CommonMark §4.5)."""
    text = printable(text)
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"
