"""Two amounts for one thing: a change over time or a conflict, and why."""

from __future__ import annotations

from ragcore.lenses.money import money_lens


def _relations(make_hits, docs: dict[str, str]) -> list[tuple[str, tuple[float, ...]]]:
    return [(c.relation, c.amounts) for c in money_lens(make_hits(docs)).conflicts]


def test_a_dated_rate_and_its_previous_rate_in_one_table_cell_are_a_change(make_hits) -> None:
    table = (
        "| Resource | Price |\n|---|---|\n"
        "| [**Object Storage**](/storage) | $0.02 / GB / month ― from June 1, 2025; previous rate: $0.03 until May 31, 2025 |\n"
    )
    (c,) = money_lens(make_hits({"pricing.md": table})).conflicts
    assert c.relation == "change" and c.amounts == (0.03, 0.02)
    assert c.subject == "object storage" and c.period == "GB/month"
    assert "2025-05-31" in c.reason and "2025-06-01" in c.reason
    # the previous rate is per the same unit, though the cell writes it once
    assert {m.per for m in c.mentions} == {"GB/month"}


def test_two_undated_prices_in_two_documents_are_a_conflict(make_hits) -> None:
    (rel,) = _relations(
        make_hits,
        {
            "plans.md": "The Team plan is $18 per seat per month.\n",
            "deck.md": "The Team plan is $15 per seat per month.\n",
        },
    )
    assert rel == ("conflict", (18, 15))


def test_figures_dated_apart_are_a_change_not_a_conflict(make_hits) -> None:
    docs = {
        "q2.md": "Cash at 30 June 2025 was $8.2M.\n",
        "q3.md": "Cash at 30 September 2025 was $7.6M.\n",
    }
    (c,) = money_lens(make_hits(docs)).conflicts
    assert (c.relation, c.amounts) == ("change", (8_200_000, 7_600_000))


def test_quoting_the_old_price_after_the_change_took_effect_is_a_conflict(make_hits) -> None:
    docs = {
        "pricing.md": "The Pro plan is $30/month from March 1, 2025.\n",
        "notes-2025-04-10.md": "I quoted the Pro plan at $25/month.\n",
    }
    (c,) = money_lens(make_hits(docs)).conflicts
    assert c.relation == "conflict"
    assert "after" in c.reason and "took effect" in c.reason


def test_dated_versions_of_one_page_are_a_change(make_hits) -> None:
    docs = {
        "plans_2023-05-01.md": "The Solo plan is $9/month.\n",
        "plans_HEAD.md": "The Solo plan is $12/month.\n",
    }
    (c,) = money_lens(make_hits(docs)).conflicts
    assert (c.relation, c.amounts) == ("change", (9, 12))


def test_proposals_forecasts_thresholds_and_examples_are_not_compared(make_hits) -> None:
    docs = {
        "a.md": "The Pro plan is $30/month.\n",
        "b.md": "We propose to raise the Pro plan to $35/month.\n",
        "c.md": "We expect the Pro plan to reach $40/month.\n",
        "d.md": "Refunds of the Pro plan above $50 need approval.\n",
        "e.md": 'Write the Pro plan price as "$45/month".\n',
    }
    assert money_lens(make_hits(docs)).conflicts == ()


def test_json_of_a_change_keeps_the_conflict_keys_and_adds_relation_and_reason(make_hits) -> None:
    docs = {
        "p.md": "Storage is $0.02 / GB / month from June 1, 2025; it was $0.03 / GB / month until May 31, 2025.\n"
    }
    lens = money_lens(make_hits(docs))
    data = lens.conflicts[0].to_json()
    assert {"subject", "currency", "period", "amounts", "docs", "sources", "relation", "reason"} <= set(data)
    assert data["relation"] == "change"
    mention = lens.figures[0].mentions[0].to_json()
    assert {"subject", "unit", "period", "effective"} <= set(mention)
    assert (mention["unit"], mention["period"]) == ("GB", "month")
    assert mention["effective"] in ("2025-06-01", "2025-05-31")
