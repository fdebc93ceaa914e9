from ragcore.passage_file import PassageFile, PassageTexts, write_passages
from ragcore.records import Passage


def _passages():
    return [
        Passage("a.md", 0, 1, 2, 0, 11, "Intro", "héllo world", (), "heading"),
        Passage("a.md", 1, 3, 3, 12, 20, "Intro > Más", "second ✓", (), "heading"),
        Passage("b.pdf", 0, 1, 9, 0, 5, "", "third", (2, 3), "sentence"),
    ]


def test_round_trip_keeps_every_field(tmp_path):
    written = write_passages(tmp_path / "p", iter(_passages()))
    reopened = PassageFile(tmp_path / "p")
    for stored in (written, reopened):
        assert len(stored) == 3
        assert list(stored) == _passages()
        assert [stored[i] for i in range(3)] == _passages()
        assert stored[-1] == _passages()[-1]
        assert stored[1:] == _passages()[1:]
        assert stored.docs == ["a.md", "a.md", "b.pdf"]


def test_texts_view_and_bounds(tmp_path, monkeypatch):
    import ragcore.passage_file as pf

    monkeypatch.setattr(pf, "READ_BLOCK", 2)  # iteration crosses a block boundary
    stored = write_passages(tmp_path / "p", _passages())
    assert list(stored) == _passages()
    texts = PassageTexts(stored)
    assert len(texts) == 3 and texts[0] == "héllo world" and texts[-1] == "third"
    assert texts[0:2] == ["héllo world", "second ✓"]
    try:
        stored[3]
    except IndexError as exc:
        assert "outside" in str(exc)
    else:
        raise AssertionError("row 3 should be out of range")


def test_empty_file(tmp_path):
    stored = write_passages(tmp_path / "p", [])
    assert len(stored) == 0 and list(stored) == [] and stored.docs == []
