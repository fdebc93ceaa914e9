from hypothesis import given, settings
from hypothesis import strategies as st

from ragcore.text import content_words, sentence_spans, stem, tokenize, words


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
