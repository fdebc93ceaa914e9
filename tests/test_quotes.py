"""Quotes against text whose spacing differs, as PDF extraction leaves it."""

from ragcore.documents import load_path
from ragcore.quotes import find_quote, typed_form

RUN_TOGETHER = "Continuous monitoring. We also checkdriving records throughout the y\near to promptly act."


def spans(quote: str, text: str) -> list[str]:
    return [text[a:b] for a, b in find_quote(quote, text)]


def test_a_quote_typed_from_the_page_finds_words_the_extraction_ran_together():
    assert spans("We also check driving records", RUN_TOGETHER) == ["We also checkdriving records"]


def test_a_quote_finds_a_word_the_extraction_broke_at_a_line_end():
    assert spans("throughout the year to promptly", RUN_TOGETHER) == ["throughout the y\near to promptly"]


def test_a_quote_copied_from_run_together_text_finds_the_spaced_text():
    assert spans("checkdriving records", "We also check driving records.") == ["check driving records"]


def test_white_space_runs_are_matched_first():
    # "ab c" matches as written; the spacing-free reading would also take "abc"
    assert spans("ab c", "abc then ab c") == ["ab c"]


def test_without_spacing_case_and_every_character_still_count():
    assert find_quote("We Also check driving", RUN_TOGETHER) == []
    assert find_quote("check diving records", RUN_TOGETHER) == []


def test_repeats_are_reported_by_the_spacing_free_reading_too():
    assert len(find_quote("a b", "ab and ab")) == 2


def test_a_typed_quote_matches_ligatures_and_typographic_quotation_marks():
    text = "Files are \ufb01nally backed up. We\u2019ve said \u201cnever\u201d."
    assert spans("files are finally", text.replace("Files", "files")) == ["files are \ufb01nally"]
    assert spans('We\'ve said "never"', text) == ["We\u2019ve said \u201cnever\u201d"]
    assert find_quote("files are finally", text) == []  # case still counts


def test_typed_form_keeps_where_each_character_came_from():
    form, origins = typed_form("a \ufb01 b")
    assert form == "afib"
    assert list(origins) == [0, 2, 2, 4]


def test_quotes_typed_from_a_filing_resolve_in_its_extracted_text(shared_dir):
    # pypdf runs these words together ("checkdriving") and breaks "promote" at a line end
    text = load_path(shared_dir / "documents" / "sec-10k" / "lyft_2021_10k.pdf").text
    for quote in (
        "We also check driving records throughout the year",
        "Some measures we take to promote the safety of riders",
    ):
        assert quote not in text
        assert len(find_quote(quote, text)) == 1, quote
