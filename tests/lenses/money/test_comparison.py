"""The lens over hits: amounts as keys, conflicts, lines, JSON shape, a real page."""

from __future__ import annotations

from ragcore.lenses.money import money_lens


def test_amount_is_the_key_with_and_without_period(make_hits) -> None:
    hits = make_hits({"a.md": "The Pro plan is $999.\n\nIt stays $999/month for everyone on Pro.\n"})
    lens = money_lens(hits)
    assert len(lens.figures) == 1
    figure = lens.figures[0]
    assert (figure.amount, figure.currency) == (999, "USD")
    assert [(m.first_line, m.period) for m in figure.mentions] == [(1, None), (3, "month")]
    assert not lens.conflicts


def test_currency_is_part_of_the_key(make_hits) -> None:
    lens = money_lens(make_hits({"a.md": "Pro is $49.\n\nIn Europe, Pro is €49.\n"}))
    assert sorted((f.amount, f.currency) for f in lens.figures) == [(49, "EUR"), (49, "USD")]
    assert not lens.conflicts  # one subject, two currencies: not comparable


def test_conflict_across_two_documents_comes_first(make_hits) -> None:
    hits = make_hits(
        {
            "pricing.md": "# Pricing\n\nStorage is $0.02/GB.\n\nThe Pro plan costs $49 per user per month.\n",
            "sales-call.md": "# Call notes\n\nWe agreed a pilot.\n\nTold them the Pro plan is $39 per user per month.\n",
        }
    )
    lens = money_lens(hits)
    assert len(lens.conflicts) == 1
    conflict = lens.conflicts[0]
    assert conflict.subject == "pro plan"
    assert conflict.period == "user/month"
    assert conflict.amounts == (49, 39)
    assert conflict.docs == ("pricing.md", "sales-call.md")
    assert [(m.doc, m.first_line) for m in conflict.mentions] == [("pricing.md", 5), ("sales-call.md", 5)]
    # the two conflicting figures first, each with its source; the storage price after
    assert [(f.amount, f.conflict) for f in lens.figures] == [(49, True), (39, True), (0.02, False)]
    assert lens.figures[0].mentions[0].doc == "pricing.md"
    assert lens.figures[1].mentions[0].doc == "sales-call.md"


def test_monthly_and_yearly_price_of_one_plan_is_not_a_conflict(make_hits) -> None:
    hits = make_hits({"a.md": "The Pro plan is $20 per month.\n\nThe Pro plan is $200 per year.\n"})
    lens = money_lens(hits)
    assert not lens.conflicts
    assert all(not f.conflict for f in lens.figures)


def test_missing_period_is_compared_with_a_stated_one(make_hits) -> None:
    hits = make_hits({"a.md": "The Pro plan is $20 per month.\n", "b.md": "We quoted the Pro plan at $25.\n"})
    (conflict,) = money_lens(hits).conflicts
    assert conflict.amounts == (20, 25)
    assert conflict.period == "month"


def test_a_change_within_one_sentence_is_not_a_conflict(make_hits) -> None:
    hits = make_hits({"a.md": "We proposed to raise the Pro plan from $20 per month to $25 per month.\n"})
    lens = money_lens(hits)
    assert [f.amount for f in lens.figures] == [20, 25]
    assert not lens.conflicts


def test_the_changed_price_stated_elsewhere_is_a_conflict(make_hits) -> None:
    hits = make_hits(
        {
            "minutes.md": "We proposed to raise the Pro plan from $20 per month to $25 per month.\n",
            "quote.md": "The Pro plan was quoted at $25 per month.\n",
            "pricing.md": "The Pro plan is $20/month on monthly billing.\n",
        }
    )
    (conflict,) = money_lens(hits).conflicts
    assert set(conflict.amounts) == {20, 25}
    assert conflict.relation == "conflict" and "no dates" in conflict.reason
    assert (
        conflict.subject == "pro plan / billed monthly"
    )  # no stated term is taken as monthly for a monthly price
    # a proposed change is not a price in force: only the quote and the price list disagree
    assert set(conflict.docs) == {"quote.md", "pricing.md"}


def test_unstated_billing_is_not_compared_with_annual_billing(make_hits) -> None:
    hits = make_hits(
        {"a.md": "The Pro plan is $20 per month.\n\nThe Pro plan is $16 per month, billed annually.\n"}
    )
    assert not money_lens(hits).conflicts


def test_per_user_and_flat_prices_are_not_compared(make_hits) -> None:
    hits = make_hits({"a.md": "The Pro plan is $20 per user per month.\n\nThe Pro plan is $90 per month.\n"})
    assert not money_lens(hits).conflicts


def test_billing_terms_make_different_subjects(make_hits) -> None:
    hits = make_hits(
        {"a.md": "Pro is $10/month if you pay monthly.\n\nPro is $8/month with annual billing.\n"}
    )
    lens = money_lens(hits)
    assert not lens.conflicts
    assert {m.subject for f in lens.figures for m in f.mentions} == {
        "pro / billed monthly",
        "pro / billed annually",
    }


def test_subject_wording_is_unified_for_one_key(make_hits) -> None:
    hits = make_hits({"a.md": "The Pro plan is $20.\n\nPro is $25.\n"})
    lens = money_lens(hits)
    (conflict,) = lens.conflicts
    assert conflict.subject == "pro"  # the shortest wording of the key
    assert {m.subject for f in lens.figures for m in f.mentions} == {"pro"}


def test_mention_lines_follow_the_passage_start(passages_of, hits_from) -> None:
    text = "# Prices\n\nIntro line.\nThe Team plan\ncosts $30 per month.\nOther line.\n"
    passages = passages_of("doc.md", text)
    # only the second paragraph is retrieved: lines 3-6 of the document
    (fig,) = money_lens(hits_from(passages[1:])).figures
    (m,) = fig.mentions
    assert (m.first_line, m.last_line) == (4, 5)  # the sentence spans two lines
    assert m.text == "The Team plan costs $30 per month."
    assert m.subject == "team plan"
    assert m.label == "Prices"


def test_overlapping_passages_report_a_mention_once(passages_of, hits_from) -> None:
    passages = passages_of("doc.md", "Pro is $20.\n")
    lens = money_lens(hits_from([passages[0], passages[0]]))
    assert len(lens.figures) == 1 and len(lens.figures[0].mentions) == 1


def test_json_shape(make_hits) -> None:
    lens = money_lens(make_hits({"a.md": "Pro is $20 per month.\n", "b.md": "Pro is $25 per month.\n"}))
    fig = lens.figures[0].to_json()
    assert set(fig) == {"amount", "currency", "conflict", "mentions"}
    assert fig["amount"] == 20 and isinstance(fig["amount"], int)
    assert {"doc", "first_line", "last_line", "text", "subject", "period"} <= set(fig["mentions"][0])
    conflict = lens.conflicts[0].to_json()
    assert {"subject", "amounts", "docs"} <= set(conflict)
    assert conflict["amounts"] == [20, 25] and conflict["docs"] == ["a.md", "b.md"]
    assert [s["doc"] for s in conflict["sources"]] == ["a.md", "b.md"]


# ---------------------------------------------------------------- real documents


def _line_with(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), start=1) if needle in line)


def test_plausible_2021_lowest_tier_has_two_billing_terms(shared_dir, passages_of, hits_from) -> None:
    path = shared_dir / "documents" / "plausible" / "subscription-plans_2021-01-08_fa92cfd1.md"
    text = path.read_text(encoding="utf-8")
    lens = money_lens(hits_from(passages_of(path.name, text)))
    by_amount = {f.amount: f for f in lens.figures}
    assert {6, 48, 4} <= set(by_amount)
    six, forty_eight, four = by_amount[6].mentions[0], by_amount[48].mentions[0], by_amount[4].mentions[0]
    assert six.first_line == _line_with(text, "$6/month")
    assert forty_eight.first_line == four.first_line == _line_with(text, "$48")
    assert (six.period, forty_eight.period, four.period) == ("month", "year", "month")
    # one tier, two billing terms: the term is part of the subject
    tier, _, monthly = six.subject.partition(" / billed ")
    assert monthly == "monthly"
    assert forty_eight.subject == four.subject == f"{tier} / billed annually"
    assert "tier" in tier
    assert not lens.conflicts
    assert not any(f.conflict for f in lens.figures)
