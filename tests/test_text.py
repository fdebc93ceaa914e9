import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragcore.text import content_words, identifiers, sentence_spans, stem, tokenize, words


def test_money_percent_and_numbers_are_whole_tokens():
    assert words("It costs $1,299.00 a month, or 99.99% uptime, version 2.3") == [
        "it",
        "costs",
        "$1299",
        "a",
        "month",
        "or",
        "99.99%",
        "uptime",
        "version",
        "2.3",
    ]


def test_stop_words_keep_negations():
    toks = tokenize("We will never sell the data and do not share it")
    assert "never" in toks and "not" in toks and "the" not in toks and "and" not in toks


def test_stemming_meets_inflections():
    assert stem("cleaned") == stem("cleaning") == stem("clean")
    assert tokenize("Cleaned daily") == tokenize("cleaning DAILY")
    assert tokenize("Cleaned", stemming=False) == ["cleaned"]


def test_unicode_lowercase_and_curly_apostrophes():
    assert words("Café’s ÉTÉ") == ["café's", "été"]


def test_content_words_ignore_stop_words():
    assert content_words("the price of the plan") == {stem("price"), stem("plan")}


def test_sentence_spans_respect_abbreviations_and_list_numbers():
    text = "See e.g. the table. Prices rose 3. Then fell.\n\n1. First item\n2. Second item"
    pieces = [text[s:e].strip() for s, e in sentence_spans(text)]
    assert pieces[0] == "See e.g. the table."
    assert "1. First item" in pieces and "2. Second item" in pieces


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .!?\n\t1#-e.g")), max_size=300))
def test_sentence_spans_cover_text_without_gaps(text):
    spans = sentence_spans(text)
    assert "".join(text[s:e] for s, e in spans) == text
    assert all(s < e for s, e in spans)
    assert all(spans[i][1] == spans[i + 1][0] for i in range(len(spans) - 1))


def test_sentence_spans_of_a_range():
    text = "Skip this. Keep one. Keep two."
    start = text.index("Keep")
    spans = sentence_spans(text, start, len(text))
    assert spans[0][0] == start and spans[-1][1] == len(text)
    assert [text[s:e].strip() for s, e in spans] == ["Keep one.", "Keep two."]


def test_name_acronym_is_the_initials_of_a_three_to_five_word_name():
    from ragcore.text import name_acronym

    assert name_acronym("master-services-agreement.pdf") == "msa"
    assert name_acronym("docs/data_processing_addendum.md") == "dpa"
    assert name_acronym("incident-report-2025-11-18.md") == ""  # two words: too short
    assert name_acronym("sla.md") == ""
    assert name_acronym("1234") == ""  # a numbered document (BEIR)


def test_open_table_header_is_the_header_of_the_table_a_text_ends_inside():
    from ragcore.text import open_table_header

    table = "## Codes\n\n| Code | Meaning |\n| --- | --- |\n| A-1 | first |\n| A-2 | second |\n"
    assert open_table_header(table) == "Code | Meaning"
    assert open_table_header(table + "\n\n") == "Code | Meaning"
    # The table is closed by text after it, or there is none.
    assert open_table_header(table + "\nA paragraph after the table.\n") == ""
    assert open_table_header("No table | here, only a pipe.") == ""
    # Rows without their header are not a table.
    assert open_table_header("| A-3 | third |\n| A-4 | fourth |\n") == ""


# The identifier forms issue #22 names: each is one token and its parts are tokens too.
IDENTIFIER_FORMS = [
    ("zq3x4w", "zq3x4w", {"zq", "3", "x", "4", "w"}),
    ("ISO-27001", "iso27001", {"iso", "27001"}),
    ("SOC 2", "soc2", {"soc", "2"}),
    ("v2.3.1", "v2.3.1", {"v", "2.3.1"}),
    ("ERR-4012", "err4012", {"err", "4012"}),
    ("$1,199", "$1199", {"1199"}),
]


@pytest.mark.parametrize(("code", "whole", "parts"), IDENTIFIER_FORMS)
def test_identifier_forms_are_indexed_whole_and_by_their_parts(code, whole, parts):
    from ragcore.text import search_terms

    terms = search_terms(f"See {code} in the notes.")
    assert whole in terms, terms
    assert parts <= set(terms), terms
    # The same form in a question gives the same whole token.
    assert whole in search_terms(f"What does {code} mean?")


def test_phrase_initials_are_the_initials_of_runs_of_three_to_five_words():
    from ragcore.text import phrase_initials

    found = phrase_initials("the request for proposal")
    assert "rfp" in found and "trfp" in found and "tr" not in found
    assert phrase_initials("service level agreement") == ["sla"]
    assert phrase_initials("two words") == []
    assert "lag" not in phrase_initials("level 2 agreement goes")  # a number breaks the run


def test_number_words_match_whole_and_are_shared_by_answer_and_lens():
    import re

    from ragcore.answer.disagreement import figures
    from ragcore.lenses.contradiction import stated_times
    from ragcore.text import NUMBER_WORD_PATTERN, NUMBER_WORDS

    assert re.match(NUMBER_WORD_PATTERN, "sixty days").group() == "sixty"
    assert re.match(NUMBER_WORD_PATTERN, "fifteen").group() == "fifteen"
    # the answer's figures read every word the table holds, as the lens's stated times do
    for word, value in NUMBER_WORDS.items():
        assert figures(f"within {word} days") == {"day@within": {float(value)}}
        (time,) = stated_times(f"Data will be deleted within {word} days.")
        assert (time.kind, time.amount, time.unit) == ("by", value, "day")


def test_identifiers_fast_path_for_ascii_without_digits_keeps_every_answer():
    # ASCII text without a digit holds no identifier (each holds a digit), so it is skipped
    # unread; text with a digit, or non-ASCII text (NFKC first), is read as before.
    assert identifiers("plain words, ISO and SOC only") == []
    assert identifiers("ISO-27001 and SOC 2 by v2.3.1") == ["iso27001", "soc2", "v2.3.1"]
    assert identifiers("ＳＯＣ ２ and ｚｑ３ｘ４ｗ") == ["soc2", "zq3x4w"]  # full-width, NFKC to ASCII
    assert identifiers("café x²y") == ["x2y"]  # non-ASCII: the superscript two is a digit after NFKC


def _identifiers_read_in_full(text: str) -> list[str]:
    """``identifiers`` without its fast path: NFKC, then every match read."""
    import unicodedata

    from ragcore.text import _IDENTIFIER, _JOINERS, _SPACED_CODE

    text = unicodedata.normalize("NFKC", text)
    found = []
    for m in _IDENTIFIER.finditer(text):
        code = m.group()
        if code.isalpha() or not any(c.isdigit() for c in code):
            continue
        if not any(c.isalpha() for c in code) and not any(c in "-_/" for c in code):
            continue
        found.append((m.start(), code.lower().translate(_JOINERS)))
    found.extend((m.start(), (m.group(1) + m.group(2)).lower()) for m in _SPACED_CODE.finditer(text))
    return [code for _, code in sorted(found)]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcXYZ09 -_./$%²１ＳéO", max_size=40))
def test_identifiers_fast_path_equals_the_full_read(text):
    assert identifiers(text) == _identifiers_read_in_full(text)
