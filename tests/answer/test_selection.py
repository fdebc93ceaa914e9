"""``answer.selection.choose``: the best unit, the further units kept beside
it, and the two measured (off) rules that would keep fewer."""

from ragcore.answer.relevance import Scorer, make_part
from ragcore.answer.selection import Quoting, choose
from ragcore.answer.units import Unit


def _unit(text: str, rank: int, dense: float) -> Unit:
    return Unit("quote", text, "pricing.md", rank, rank, "Pricing", (), rank, dense, rank)


UNITS = [
    _unit("The Team plan costs $49 per seat a month.", 1, 0.8),
    _unit("Team plan seats are billed monthly.", 2, 0.6),
    _unit("Customers consistently ask for paper invoices.", 3, 0.55),
]
PART = make_part("What does the Team plan cost a month?")


def _texts(units: list[Unit]) -> list[str]:
    return [u.text for u in units]


def test_further_units_scoring_the_keep_ratio_are_kept():
    scorer = Scorer(UNITS)
    picked = choose(UNITS, PART, scorer, set(), min_score=0.5, quoting=Quoting(keep_ratio=0.1))
    assert _texts(picked) == _texts(UNITS)


def test_same_subject_drops_a_unit_sharing_no_topic_word_with_the_best():
    scorer = Scorer(UNITS)
    assert scorer.stated(UNITS[0], PART) & scorer.stated(UNITS[1], PART)
    assert not scorer.stated(UNITS[2], PART)
    picked = choose(
        UNITS, PART, scorer, set(), min_score=0.5, quoting=Quoting(keep_ratio=0.1, same_subject=True)
    )
    assert _texts(picked) == _texts(UNITS[:2])


def test_floor_keeps_only_units_scoring_the_threshold():
    scorer = Scorer(UNITS)
    scores = [scorer.score(u, PART) for u in UNITS]
    threshold = sorted(scores)[1]  # between the lowest and the rest
    picked = choose(
        UNITS, PART, scorer, set(), min_score=threshold, quoting=Quoting(keep_ratio=0.1, floor=True)
    )
    assert _texts(picked) == [u.text for u, s in zip(UNITS, scores, strict=True) if s >= threshold]


def test_anchored_quotes_keeps_only_units_of_documents_naming_the_subject():
    units = [
        Unit("quote", "Revenue rose to $17,455 a month per user.", "10-k.txt", 1, 1, "", (), 1, 0.9, 1),
        Unit("quote", "HEY for Domains is billed per user each month.", "hey.md", 2, 2, "", (), 2, 0.7, 2),
    ]
    part = make_part("How much does HEY for Domains cost per user each month?")
    scorer = Scorer(units)
    assert scorer.score(units[0], part) > scorer.score(units[1], part)

    def names_hey(u: Unit) -> bool:
        return u.doc == "hey.md"

    loose = choose(
        units, part, scorer, set(), min_score=0.1, quoting=Quoting(keep_ratio=0.1), anchored=names_hey
    )
    assert _texts(loose)[0] == units[0].text  # the decision is anchored; the quotes are not
    strict = choose(
        units,
        part,
        scorer,
        set(),
        min_score=0.1,
        quoting=Quoting(keep_ratio=0.1, anchored=True),
        anchored=names_hey,
    )
    assert _texts(strict) == [units[1].text]
