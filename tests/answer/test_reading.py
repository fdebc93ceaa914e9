"""What a quoted sentence needs to be read alone: list items whole, the
sentence a back-reference leans on, the steps an enumeration announces;
the kind of answer "why" and "how much notice" ask for; and no
contradiction claimed for a question that did not ask to weigh two sides."""

from __future__ import annotations

import pytest

from ragcore.answer import cohesion, units
from ragcore.answer.claims import is_yes_no
from ragcore.answer.cohesion import announces
from ragcore.answer.extractive import extractive_answer
from ragcore.answer.relevance import answer_cue, states_cue
from ragcore.answer.units import answer_units
from tests.answer.helpers import line_corpus


def test_a_list_item_is_a_unit_whatever_its_first_letter() -> None:
    docs = {
        "terms.md": (
            "The following do not count as downtime:\n\n"
            "- planned maintenance announced at least two days ahead, held on Saturday nights;\n"
            "- failures of systems the customer runs itself.\n"
        )
    }
    documents, hits = line_corpus(docs)
    texts = [u.text for u in answer_units(hits, documents)]
    assert "planned maintenance announced at least two days ahead, held on Saturday nights;" in texts
    # prose still has to start like a sentence: a fragment in lower case is not quoted
    documents, hits = line_corpus({"x.md": "and then the rest of a sentence cut by a page break.\n"})
    assert answer_units(hits, documents) == []


def test_a_sentence_that_leans_on_the_one_before_brings_it() -> None:
    docs = {
        "guide.md": (
            "The website still carries three claims: the speed line, the privacy line and the price line.\n"
            "Marketing will rewrite them by June, and until then sales should not repeat those claims in proposals.\n"
        ),
        "other.md": "Proposals are written by the sales team from the template library.\n",
    }
    documents, hits = line_corpus(docs)
    answer = extractive_answer(
        "Which claims should sales not repeat in proposals?", hits, documents=documents
    )
    assert "the speed line, the privacy line and the price line" in answer.text
    lines = answer.text.split("\n")
    first = next(i for i, s in enumerate(lines) if "three claims" in s)
    assert "Marketing will rewrite them" in lines[first + 1]  # in reading order


def test_an_announced_enumeration_brings_its_steps_in_order() -> None:
    docs = {
        "board.md": (
            "We would like the board's view on three risks.\n"
            "First, the gap between our marketing and our contracts.\n"
            "Two customers' lawyers asked about it this quarter.\n"
            "Legal is rewriting the website lines.\n"
            "Second, the concentration of knowledge in one team.\n"
            "A few people understand the failover path.\n"
            "Third, discipline on price in sales.\n"
        ),
        "other.md": "The board meets four times a year to review the plan.\n",
    }
    documents, hits = line_corpus(docs)
    answer = extractive_answer("Which risks did the board hear about?", hits, documents=documents)
    text = answer.text
    assert "First, the gap" in text and "Second, the concentration" in text and "Third, discipline" in text
    assert text.index("First,") < text.index("Second,") < text.index("Third,")


def test_a_sentence_announcing_a_list_brings_its_items(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = {
        "plans.md": (
            "# Plans\n\n"
            "## Enterprise-only features\n\n"
            "The features below are not available on any lower plan. Ask sales to upgrade.\n\n"
            "- Single sign-on through your identity provider\n"
            "- Programmatic site management through the sites interface\n"
            "- A managed proxy set up and maintained for you\n\n"
            "Support answers every plan within one business day.\n"
        ),
        "other.md": "Lower plans can buy extra seats at any time.\n",
    }
    documents, hits = line_corpus(docs)
    answer = extractive_answer("Which features are only on the Enterprise plan?", hits, documents=documents)
    text = answer.text
    assert "The features below" in text
    for item in ("Single sign-on", "Programmatic site management", "A managed proxy"):
        assert item in text, item
    assert text.index("The features below") < text.index("Single sign-on") < text.index("A managed proxy")
    # without the rule the items share too few of the question's words to be quoted
    monkeypatch.setattr(cohesion, "ANNOUNCED_LISTS", False)
    plain = extractive_answer(
        "Which features are only on the Enterprise plan?", hits, documents=documents
    ).text
    assert "The features below" in plain and "A managed proxy" not in plain


def test_a_sentence_that_points_nowhere_brings_no_list() -> None:
    docs = {
        "plans.md": (
            "Enterprise features are not available on any lower plan.\n\n"
            "- Single sign-on through your identity provider\n"
            "- A managed proxy set up and maintained for you\n"
        ),
    }
    documents, hits = line_corpus(docs)
    units = answer_units(hits, documents)
    items = [u for u in units if u.list_item]
    assert [u.text for u in items] == [
        "Single sign-on through your identity provider",
        "A managed proxy set up and maintained for you",
    ]
    lead = next(u for u in units if not u.list_item)
    assert not announces(lead.text)
    assert announces("The main decisions were:") and announces("Refunds are granted as follows.")


def test_why_asks_for_a_reason_and_how_much_notice_for_a_duration() -> None:
    assert answer_cue("Why did we start charging for setup?") == "reason"
    assert answer_cue("Why does the Business plan cost more?") == "reason"
    assert states_cue("A setup fee, so that setup work is paid for.", "reason")
    assert not states_cue("The setup fee is $500.", "reason")
    assert answer_cue("How much notice is given before maintenance?") == "duration"
    assert answer_cue("How much does maintenance cost?") == "amount"


def test_a_what_question_gets_no_contradiction_between_its_quotes() -> None:
    assert is_yes_no("Do we guarantee full uptime?")
    assert not is_yes_no("What uptime does the agreement guarantee?")
    docs = {
        "contract.md": "The uptime commitment in the agreement is a service level, and it is not a guarantee.\n",
        "notes.md": "The product page promises guaranteed uptime for the agreement on every plan.\n",
    }
    documents, hits = line_corpus(docs)
    what = extractive_answer("What uptime does the agreement guarantee?", hits, documents=documents)
    assert not any(s.kind == "contradiction" for s in what.sentences)
    yes_no = extractive_answer("Does the agreement guarantee uptime?", hits, documents=documents)
    assert any(s.kind == "contradiction" for s in yes_no.sentences)


def _mention(amount: float, doc: str, text: str, line: int = 1):
    from types import SimpleNamespace

    return SimpleNamespace(
        amount=amount,
        text=text,
        doc=doc,
        first_line=line,
        last_line=line,
        label=doc,
        pages=(),
        hit_rank=1,
        offset=0,
    )


def test_a_lens_conflict_is_cited_across_documents_and_only_when_about_the_question() -> None:
    from types import SimpleNamespace

    from ragcore.answer.disagreement import lens_conflicts

    price = SimpleNamespace(
        amounts=(1199.0, 999.0),
        relation="conflict",
        mentions=(
            _mention(
                1199.0, "minutes.md", "A proposal to raise the Business price from $999 to $1,199 a month.", 1
            ),
            _mention(
                999.0, "minutes.md", "A proposal to raise the Business price from $999 to $1,199 a month.", 1
            ),
            _mention(999.0, "notes.md", "The Business price is $999 a month.", 3),
        ),
    )
    lens = SimpleNamespace(conflicts=(price,))
    (pair,) = lens_conflicts(lens)
    assert {pair.first.doc, pair.second.doc} == {"minutes.md", "notes.md"}  # not one document twice
    docs = {
        "billing.md": "An account more than 45 days overdue is suspended after ten days' written notice.\n",
        "contract.md": "The provider may suspend an overdue account after giving ten days' notice.\n",
        "notes.md": "\n\nThe Business price is $999 a month.\n",
    }
    documents, hits = line_corpus(docs)
    asked = extractive_answer(
        "Is the Business price consistent?", hits, lens, documents=documents, min_score=0.0
    )
    assert any(s.kind == "conflict" for s in asked.sentences)
    other = extractive_answer(
        "Do billing and the contract agree on when an overdue account is suspended?",
        hits,
        lens,
        documents=documents,
    )
    assert not any(s.kind == "conflict" and "$999" in s.text for s in other.sentences)


def test_a_conditional_answer_brings_what_holds_outside_its_condition() -> None:
    docs = {
        "returns.md": (
            "# Returns\n"
            "## The 14-day trial period\n"
            "In the trial period, a boxed licence is returned for a full refund within 14 days of delivery.\n"
            "## Later returns\n"
            "Support answers questions about licences on weekdays.\n"
            "After the trial period, the support team sends a short survey.\n"
            "Outside the trial period, every sale is final.\n"
        ),
        "other.md": "Deliveries leave the warehouse on weekdays.\n",
    }
    documents, hits = line_corpus(docs)
    answer = extractive_answer("Can I return a boxed licence for a refund?", hits, documents=documents)
    lines = answer.text.split("\n")
    first = next(i for i, s in enumerate(lines) if "within 14 days" in s)
    assert "Outside the trial period" in lines[first + 1]
    # "After the X," is a sequence in time, not what holds outside X
    assert "sends a short survey" not in answer.text


def test_an_ordinal_adjective_is_no_enumeration_step() -> None:
    from ragcore.answer.cohesion import follows

    assert follows("Third, we cannot accept the penalty.")
    assert follows("Secondly the price rises.")
    assert not follows("Third parties may not use the interface.")
    assert not follows("First Avenue depots open at six.")


def test_a_sentence_end_whose_space_a_pdf_lost_still_ends_a_quote() -> None:
    docs = {
        "filing.txt": (
            "Any of these risks could affect the trading price of our common stock.Further, we are"
            " limited in our ability to sell these positions.\n"
        )
    }
    documents, hits = line_corpus(docs)
    texts = [u.text for u in answer_units(hits, documents)]
    assert "Any of these risks could affect the trading price of our common stock." in texts
    assert "Further, we are limited in our ability to sell these positions." in texts
    # a year or figure ends a sentence the same way
    documents, hits = line_corpus(
        {"notes.txt": "We met every covenant as of December 31, 2021.The table shows the notes.\n"}
    )
    assert "We met every covenant as of December 31, 2021." in [u.text for u in answer_units(hits, documents)]
    # abbreviations and names with stops are not sentence ends
    documents, hits = line_corpus({"notes.txt": "See e.g.Table 4 for the U.S.Bank figures on the plan.\n"})
    assert [u.text for u in answer_units(hits, documents)] == [
        "See e.g.Table 4 for the U.S.Bank figures on the plan."
    ]


def test_a_bullet_glyph_starts_a_list_item_even_at_the_end_of_the_line_before() -> None:
    docs = {
        "filing.txt": (
            "Our key strategies include our plans to:•\n"
            "increase rider use cases in our largest cities;•\n"
            "expand the delivery service to new markets.\n"
        )
    }
    documents, hits = line_corpus(docs)
    found = {u.text: u for u in answer_units(hits, documents)}
    item = found["increase rider use cases in our largest cities;"]
    assert item.list_item and item.first_line == item.last_line == 2
    assert "expand the delivery service to new markets." in found
    assert not any("•" in text for text in found)


def _one_line_hit(text: str, line: int):
    documents, hits = line_corpus({"clause.txt": text})
    return documents, [h for h in hits if h.passage.first_line == line]


def test_a_long_sentence_around_a_passage_is_read_whole_or_not_at_all() -> None:
    lead = "The borrower may request an advance " + "on any business day of the term " * 30
    text = f"Intro line here.\n{lead}\nand each such request shall state the amount and the date.\n"
    documents, hits = _one_line_hit(text, 3)
    quoted = [u.text for u in answer_units(hits, documents)]
    assert quoted and quoted[0].startswith("The borrower may request an advance")
    assert quoted[0].endswith("the amount and the date.")
    # longer than the widest read around the passage: left out, never a fragment
    lead = "The borrower may request an advance " + "on any business day of the term " * 120
    documents, hits = _one_line_hit(
        f"Intro line here.\n{lead}\nand each such request shall state the date.\n", 3
    )
    assert answer_units(hits, documents) == []


def test_brackets_in_a_formula_are_text_and_a_reference_link_reads_as_its_words() -> None:
    labels = units.reference_labels(
        "See [the status page][Uptime].\n\n[uptime]: https://status.example.com\n"
    )
    assert labels == frozenset({"uptime"})
    assert units.clean("r = (nΣxy − [Σx][Σy]) / n", labels) == "r = (nΣxy − [Σx][Σy]) / n"
    assert (
        units.clean("We make our [uptime public here][Uptime].", labels) == "We make our uptime public here."
    )
    assert units.clean("Read [uptime][].", labels) == "Read uptime."
    assert units.clean("A [link](https://example.com) here.") == "A link here."


def test_a_line_that_is_only_a_link_is_navigation_not_a_sentence() -> None:
    docs = {
        "privacy.md": (
            "* [Location of site and data](#location-of-site-and-data)\n"
            "1. [Refund policy](../refund/index.md)\n"
            "- Your data is stored in the [United States](https://example.com/us).\n"
        )
    }
    documents, hits = line_corpus(docs)
    assert [u.text for u in answer_units(hits, documents)] == ["Your data is stored in the United States."]


def test_a_sentence_continuing_a_quote_brings_the_list_it_announces() -> None:
    docs = {
        "chapter.md": (
            "The coefficient of determination is the square of the correlation coefficient. "
            "It has an interpretation in the context of the data:\n\n"
            "- when expressed as a percent, it is the share of variation in y explained by x.\n"
            "- one minus it is the share of variation in y not explained by x.\n\n"
            "Outliers can change the coefficient a great deal.\n"
        )
    }
    documents, hits = line_corpus(docs)
    text = extractive_answer("What is the coefficient of determination?", hits, documents=documents).text
    lead = text.index("It has an interpretation")
    assert lead < text.index("when expressed as a percent") < text.index("one minus it")


def test_a_displayed_formula_comes_with_the_sentence_that_announces_it() -> None:
    docs = {
        "chapter.md": (
            "The least-squares regression line for the exam example has the equation\n\n"
            "    ŷ = −173.51 + 4.83x.\n\n"
            "Least-squares line or line of best fit:\n\n"
            "ŷ = a + bx,\n\n"
            "Any other line would have a higher sum of squared errors.\n"
        )
    }
    documents, hits = line_corpus(docs)
    found = {u.text: u for u in answer_units(hits, documents)}
    assert found["ŷ = a + bx,"].list_item and found["ŷ = −173.51 + 4.83x."].list_item
    assert announces("The least-squares regression line for the exam example has the equation")
    assert not announces("Any other line would have a higher sum of squared errors.")
    text = extractive_answer(
        "What is the equation of the least-squares line?", hits, documents=documents
    ).text
    assert text.index("has the equation") < text.index("ŷ = −173.51 + 4.83x.")
    assert text.index("line of best fit:") < text.index("ŷ = a + bx,")


def test_a_passage_ending_in_a_lead_in_is_read_on_to_what_it_announces() -> None:
    text = (
        "# Liability\n\n"
        "We mention liability throughout these terms but to put it all in one section:\n\n"
        "***You agree that the company shall not be liable for any indirect damages.***\n\n"
        "If you have a question, contact support.\n"
    )
    documents, hits = line_corpus({"terms.md": text})
    lead_in = [h for h in hits if h.passage.first_line == 3]
    found = [(u.text, u.first_line) for u in answer_units(lead_in, documents)]
    assert found == [
        ("We mention liability throughout these terms but to put it all in one section:", 3),
        ("You agree that the company shall not be liable for any indirect damages.", 5),
    ]
    answer = extractive_answer("What is the company's liability?", lead_in, documents=documents).text
    assert answer.index("in one section:") < answer.index("shall not be liable")


def test_a_lead_in_brings_its_whole_list_and_nothing_after_it() -> None:
    text = (
        "The following do not count as downtime:\n\n"
        "- planned maintenance announced two days ahead;\n"
        "  held on Saturday nights;\n\n"
        "- failures of systems the customer runs itself.\n\n"
        "Credits are applied to the next invoice.\n"
    )
    documents, hits = line_corpus({"sla.md": text})
    lead_in = [h for h in hits if h.passage.first_line == 1]
    found = [u.text for u in answer_units(lead_in, documents)]
    assert found[0] == "The following do not count as downtime:"
    assert "failures of systems the customer runs itself." in found
    assert not any("Credits" in t for t in found)


def test_a_sentence_leaning_on_one_side_of_a_disagreement_is_not_quoted_alone() -> None:
    docs = {
        "notes.md": (
            "I quoted the Business plan at $1,199 per month to the customer.\n"
            "Rosa asked whether that is the best we can do.\n"
        ),
        "pricing.md": "The Business plan costs $999 per month to every customer.\n",
    }
    documents, hits = line_corpus(docs)
    answer = extractive_answer("Is the Business plan price per month consistent?", hits, documents=documents)
    assert [s.kind for s in answer.sentences] == ["conflict"]
    assert "Rosa asked" not in answer.text
