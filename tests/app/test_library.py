"""Library page: upload Markdown and PDF, list, reject, remove, re-chunk, view passages."""

from __future__ import annotations

from tests.app.helpers import plain, start
from tests.test_service import make_pdf

NOTES_MD = b"""# Field notes

## Pricing

The Team plan costs $49 per user per month.

## Markup

This line has <img src=x onerror=alert(1)> and **bold** text.
"""


def _uploads(at):
    """Switch the sidebar to the session's uploads collection."""
    at.radio(key="collection-label").set_value("My uploads").run()
    assert not at.exception, at.exception
    return at


def _listed(at) -> list[str]:
    table = next(
        d.value for d in at.dataframe if "Document" in d.value.columns and "Chunking" in d.value.columns
    )
    return list(table["Document"])


def _popover_labels(at) -> list[str]:
    """Labels of the page's popovers (AppTest keeps them as blocks of type "popover")."""
    found, stack = [], [at.main]
    while stack:
        node = stack.pop()
        if getattr(node, "type", None) == "popover":
            found.append(node.proto.popover.label)
        stack.extend(getattr(node, "children", {}).values())
    return found


def test_upload_markdown_and_pdf_list_reject_and_remove(app_env, monkeypatch) -> None:
    # A private uploads collection per AppTest session keeps this test's files its own.
    monkeypatch.setenv("RAGCORE_ISOLATION", "session")
    at = _uploads(start("pages/library.py"))
    assert [s.value for s in at.subheader] == ["Documents (0)"]

    pdf = make_pdf(
        [["Quarterly board report", "Revenue grew by a fifth."], ["The Team plan stays at 49 dollars."]]
    )
    at.get("file_uploader")[0].set_value(
        [
            ("notes.md", NOTES_MD, "text/markdown"),
            ("../../board.pdf", pdf, "application/pdf"),
            ("empty.txt", b"", "text/plain"),
        ]
    )
    at.button(key="FormSubmitter:upload-form-Add to library").click().run()
    assert not at.exception, at.exception
    assert sorted(plain(s.value).split(":")[0] for s in at.success) == ["board.pdf", "notes.md"]
    assert [plain(e.value) for e in at.error] == ["empty.txt was not added: the file is empty"]
    assert _listed(at) == ["board.pdf", "notes.md"]
    assert at.get("progress")[0].proto.value == 100
    assert plain(at.get("progress")[0].proto.text) == "Done with 3 files: 2 added, 1 refused"

    # Passages of the Markdown file, with line spans; its markup is shown escaped.
    at.selectbox(key="library-doc").set_value("notes.md").run()
    passages = next(d.value for d in at.dataframe if "Section" in d.value.columns)
    assert all(span.startswith("line") for span in passages["Lines"])
    at.number_input(key="passage-pick").set_value(len(passages)).run()
    shown = "".join(h.proto.body for h in at.html if "rc-doc" in h.proto.body)
    assert "&lt;img src=x onerror=alert(1)&gt;" in shown and "<img" not in shown

    # Re-chunk as a whole document: one passage, and the page says so.
    at.selectbox(key="rechunk-choice").set_value("whole").run()
    at.button(key="rechunk").click().run()
    assert not at.exception, at.exception
    assert any("Whole-document mode" in plain(w.value) and "notes.md" in plain(w.value) for w in at.warning)

    # The upload's messages were for that upload: they do not come back on the next run.
    assert not at.success and not at.error

    # Remove the PDF, after confirming in the popover: only the Markdown file is left.
    at.selectbox(key="library-doc").set_value("board.pdf").run()
    confirm = at.button(key="remove")
    assert confirm.label == "Yes, remove it"
    assert _popover_labels(at) == ["Remove from library"]
    assert _listed(at) == ["board.pdf", "notes.md"]  # nothing removed before the confirmation
    confirm.click().run()
    assert not at.exception, at.exception
    assert _listed(at) == ["notes.md"]
    assert [s.value for s in at.subheader] == ["Documents (1)", "Curated entries"]


def test_demo_collection_is_listed_read_only(app_env) -> None:
    at = start("pages/library.py")
    listed = _listed(at)
    assert "pricing-notes.md" in listed and any(name.endswith(".pdf") for name in listed)
    assert not at.get("file_uploader")
    assert not [b for b in at.button if b.key in ("remove", "rechunk")]  # read-only: no re-chunk, no remove
    assert "read-only" in plain(at.caption[0].value)


def test_every_file_refused_is_counted_as_refused(app_env, monkeypatch) -> None:
    monkeypatch.setenv("RAGCORE_ISOLATION", "session")
    at = _uploads(start("pages/library.py"))
    at.get("file_uploader")[0].set_value([(f"empty-{i}.txt", b"", "text/plain") for i in range(4)])
    at.button(key="FormSubmitter:upload-form-Add to library").click().run()
    assert not at.exception, at.exception
    assert plain(at.get("progress")[0].proto.text) == "Done with 4 files: 0 added, 4 refused"
    assert len(at.error) == 4 and not at.success
    assert at.subheader[0].value == "Documents (0)"
