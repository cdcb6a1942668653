"""``punto report --pdf``: the document printed by Chromium, with its text as
text.  Its own module: the PDF is printed by a Playwright instance
of its own, and the sync API allows one per thread."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from punto.cli import main
from tests.browser import chromium_path

#: ``punto report --pdf`` runs Chromium itself, not through the browser fixture.
pytestmark = pytest.mark.browser


@pytest.mark.slow
def test_report_pdf_is_printed_with_its_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    chromium_path()  # skips without Debian's chromium (fails under CI)
    out = tmp_path / "report"
    argv = ["report", "dragon-tiger", "--out", str(out), "--pdf", "--counting-shoes", "0"]
    assert main(argv) == 0
    written = capsys.readouterr().out.splitlines()
    assert written == [f"wrote {out / 'index.html'}", f"wrote {out / 'report.pdf'}"]
    data = (out / "report.pdf").read_bytes()
    assert data.startswith(b"%PDF-")
    # text, not pictures of text: fonts with a map back to characters, on several pages
    assert b"/ToUnicode" in data
    assert len(re.findall(rb"/Type\s*/Page[^s]", data)) >= 3
