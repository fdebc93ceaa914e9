"""Risk lens: absolute wording, negation, subjects and contradictions."""

from __future__ import annotations

import pytest

from ragcore.lenses.risk import find_absolutes, risk_lens

# (text, [(term, negated), ...])
TERM_CASES = [
    ("We guarantee delivery within two days.", [("guarantee", False)]),
    ("Delivery is guaranteed.", [("guarantee", False)]),
    ("We make no guarantees about delivery.", [("guarantee", True)]),
    ("We don't guarantee delivery.", [("guarantee", True)]),
    ("We don’t guarantee delivery.", [("guarantee", True)]),
    ("We cannot guarantee delivery.", [("guarantee", True)]),
    ("The software comes without guarantees.", [("guarantee", True)]),
    ("There is no warranty of any kind.", [("warranty", True)]),
    ("We promise to reply.", [("promise", False)]),
    ("Support is always available.", [("always", False)]),
    ("Support is not always available.", [("always", True)]),
    ("We will never sell your data.", [("always", False)]),  # "never" is itself the absolute
    ("Unlimited projects on the Pro plan.", [("unlimited", False)]),
    ("Storage is not unlimited.", [("unlimited", True)]),
    ("We offer 100% uptime.", [("100%", False)]),
    ("We offer 100 percent uptime.", [("100%", False)]),
    ("There is no risk to you.", [("no risk", False)]),
    ("Start a risk-free trial.", [("no risk", False)]),
    ("Your files are kept forever.", [("always", False)]),
    ("Backups are encrypted at all times.", [("always", False)]),
    ("Exports are fully supported.", [("fully", False)]),
    ("We may refuse any and all requests.", [("any and all", False)]),
    ('The Service is provided "as is", without warranties.', [("guarantee", True), ("warranty", True)]),
    # bare quantifiers and modals only inside a commitment
    ("All data is encrypted at rest.", [("all", False)]),
    ("Every access is logged and reviewed.", [("all", False)]),
    ("Not all filed tickets will get answered.", [("all", True)]),
    ("Support must respond within 4 hours.", [("must", False)]),
    ("All plans include backups.", []),
    ("Customers must enable two-factor login.", []),
    ("The total of all credits is capped at half the fee.", []),
    # not on the list: plain words that are rarely a risk on their own
    ("Setup is free of charge.", []),
    ("We won't share it.", []),
    ("None of the data leaves the region.", []),
    # a share, a clause title and a reference back are not claims
    ("Admins get emails at 80% and 100% of each allowance.", []),
    ("7. Warranties and disclaimers", []),
    ("This is the sole remedy for breach of this warranty.", []),
    ("Security is _never_ an afterthought.", [("always", False)]),
    # idioms and look-alikes that are not absolutes
    ("It does not matter at all.", []),
    ("After all, it is fine.", []),
    ("The guarantor signed the lease.", []),
    ("We will notify you by email.", []),
    ("Always-on monitoring.", []),
    # negation scope: "no" of "no risk" does not reach "unlimited"; "but" ends the look-back
    ("There is no risk and unlimited storage.", [("no risk", False), ("unlimited", False)]),
    ("We do not log visits but we always encrypt.", [("always", False)]),
    # a negated subject denies its verb beyond the look-back window; "no risk" stays its own term
    ("No data is ever guaranteed to be safe.", [("guarantee", True)]),
    ("Nothing is guaranteed.", [("guarantee", True)]),
    ("None of our plans is fully managed.", [("fully", True)]),
    ("No risk, always on.", [("no risk", False), ("always", False)]),
    ("No setup fee and we always reply.", [("always", False)]),
    ("No matter what happens, your data is always encrypted.", [("always", False)]),
    # "nothing ... ever" is "never" written apart; a denied promise denies it too
    ("Nothing will ever be shared.", [("always", False)]),
    (
        "Backups are not a promise that nothing can ever be lost: in a failure.",
        [("promise", True), ("always", True)],
    ),
    ("There is nothing whatsoever to fear, ever.", []),
    # bare quantifiers only inside a commitment, as policy pages write them
    ("While files travel to us, everything is compressed, and sent over TLS.", [("all", False)]),
    ("Any outages of the API are promptly posted on our status board.", [("all", False)]),
    # (session 9: the opening time is a stated time for the act too)
    (
        "After 14 days, all uploads will be permanently erased from our disks.",
        [("must", False), ("all", False)],
    ),
    ("We will keep working every week to earn that confidence.", []),
    ("We record all logins to all workspaces by device.", []),
    ("These rules cover any app we sell.", []),
    ("Invoices shall be paid within 30 days.", [("must", False)]),
    ("You must agree to the terms.", []),
    # contract wording (session 5, from the held-out data-processing addenda)
    ("The Parties warrant that they know of no conflicting law.", [("warranty", False)]),
    (
        "The vendor and the reseller warrant and undertake that the data is kept in the EU.",
        [("warranty", False)],
    ),
    ("Police need the necessary warrant, a subpoena or a court order.", []),  # a court's warrant
    (
        "The terms are governed by Irish law and (2) any claim arising from them is decided in Dublin.",
        [("all", False)],
    ),
    ("(b) Any claim arising from this licence shall be settled by arbitration in Geneva.", [("all", False)]),
    ("In giving the warranty in paragraph (c), the buyer relied on its audit.", []),
    ("A change that weakens the guarantees given under these terms of sale is notified.", []),
    ("The buyer may give the warranties and meet the duties set out in this contract.", []),
    ("The seller is in persistent breach of any warranties it gave.", []),
    ("The seller warrants that the goods are free of defects.", [("warranty", False)]),
    # session 6, from the held-out security overview, NDA, pricing pages and annual report
    ("## All tiers are billed by usage", [("all", False)]),  # a heading makes the claim
    ("All upgrades are pro-rated.", [("all", False)]),  # a hyphenated participle
    ("The move to 100%electric vans is planned.", [("100%", False)]),  # PDF text glues the next word
    (
        "Our pledge is to reach 10\n0% recycled packaging soon.",
        [("100%", False)],
    ),  # a number broken over lines
    ("Half of all buses must be electric by the end of 2031.", [("must", False)]),  # a dated deadline
    ("We will phase out diesel by March 2029.", [("must", False)]),
    ("We will reply by email.", []),  # no date: no deadline
    ("We set up a fund to cover 100% of repair costs for members.", [("100%", False)]),  # a committed share
    ("Refunds reached 100% of requests last year.", []),  # a share, no commitment
    ("- [ ] Renews in perpetuity.", []),  # an unticked option is not chosen
    ("- [x] Renews in perpetuity.", [("always", False)]),
    (
        "This deed supersedes all prior letters, understandings, representations and warranties on the sale.",
        [],
    ),
    ('ALL SAMPLES ARE PROVIDED "AS IS" AND WITHOUT WARRANTIES.', [("guarantee", True), ("warranty", True)]),
    ("This lease and all notices under it are governed by Ohio law.", [("all", False)]),
    ("We keep logs, and all entries are signed by the server.", [("all", False)]),  # ", and" starts a clause
]


@pytest.mark.parametrize(("text", "expected"), TERM_CASES, ids=[c[0][:40] for c in TERM_CASES])
def test_absolute_terms_and_negation(text: str, expected: list[tuple[str, bool]]) -> None:
    assert [(t.term, t.negated) for t in find_absolutes(text)] == expected


def test_negated_wording_includes_the_negator() -> None:
    (t,) = find_absolutes("We make no guarantees that the app will meet your needs.")
    assert t.wording == "no guarantees"
    assert t.polarity == -1
    assert t.subject == "app will meet your needs"


def test_subject_before_a_passive_term() -> None:
    (t,) = find_absolutes("Monthly uptime is guaranteed.")
    assert t.subject == "monthly uptime"


def test_contradiction_across_documents(make_hits) -> None:
    hits = make_hits(
        {
            "sla.md": "# SLA\n\nWe guarantee 99.9% uptime for all paying teams.\n",
            "terms.md": "# Terms\n\nPlease read carefully.\n\nWe make no guarantees that the service will be available.\n",
        }
    )
    lens = risk_lens(hits)
    guarantees = [f for f in lens.findings if f.term == "guarantee"]
    assert len(guarantees) == 2
    plain, denied = guarantees
    assert (plain.doc, plain.first_line, plain.negated) == ("sla.md", 3, False)
    assert (denied.doc, denied.first_line, denied.negated) == ("terms.md", 5, True)
    i, j = lens.findings.index(plain), lens.findings.index(denied)
    assert plain.contradicts == (j,) and denied.contradicts == (i,)
    assert lens.contradictions == ((min(i, j), max(i, j)),)
    # findings in a contradiction come first
    assert {i, j} == {0, 1}


def test_always_and_never_about_the_same_subject_contradict(make_hits) -> None:
    hits = make_hits(
        {"a.md": "We always reply within one day.\n", "b.md": "We never reply within one day.\n"}
    )
    lens = risk_lens(hits)
    assert lens.contradictions == ((0, 1),)


def test_never_contradicts_a_denied_promise_that_nothing_is_ever_lost(make_hits) -> None:
    hits = make_hits(
        {
            "product.md": "We never lose your data.\n",
            "security.md": "Backups are not a promise that nothing can ever be lost: a region may fail.\n",
        }
    )
    lens = risk_lens(hits)
    assert len(lens.contradictions) == 1
    i, j = lens.contradictions[0]
    assert {lens.findings[i].doc, lens.findings[j].doc} == {"product.md", "security.md"}


def test_different_subjects_do_not_contradict(make_hits) -> None:
    hits = make_hits({"a.md": "We guarantee uptime.\n", "b.md": "We make no guarantees about refunds.\n"})
    lens = risk_lens(hits)
    assert len(lens.findings) == 2
    assert lens.contradictions == ()
    assert all(f.contradicts == () for f in lens.findings)


def test_two_plain_claims_do_not_contradict(make_hits) -> None:
    hits = make_hits(
        {"a.md": "We guarantee uptime for the service.\n", "b.md": "We guarantee the service is fast.\n"}
    )
    assert risk_lens(hits).contradictions == ()


def test_blanket_rule_is_for_commitments_only(make_hits) -> None:
    # "all of our apps" names the whole offering, but "all" is not a commitment
    hits = make_hits({"a.md": "Sign in to all of our apps.\n", "b.md": "Not all reported bugs get fixed.\n"})
    assert risk_lens(hits).contradictions == ()


def test_one_finding_per_claim_per_sentence(make_hits) -> None:
    lens = risk_lens(make_hits({"a.md": "We never sell data: never have, never will.\n"}))
    assert [(f.term, f.wording) for f in lens.findings] == [("always", "never")]


def test_commitments_come_after_strong_absolutes(make_hits) -> None:
    text = "All files are encrypted.\n\nSupport must reply within 4 hours.\n\nStorage is unlimited.\n"
    lens = risk_lens(make_hits({"a.md": text}))
    assert [f.term for f in lens.findings] == ["unlimited", "all", "must"]


def test_finding_lines_follow_the_passage_start(passages_of, hits_from) -> None:
    text = "# Policy\n\nFirst line.\nWe will\nnever sell your data.\n"
    passages = passages_of("p.md", text)
    (f,) = risk_lens(hits_from(passages[1:])).findings
    # a finding's lines are those of its wording; the phrase is the whole sentence
    assert (f.doc, f.first_line, f.last_line) == ("p.md", 5, 5)
    assert f.phrase == "We will never sell your data."
    assert f.label == "Policy"


def test_json_shape(make_hits) -> None:
    lens = risk_lens(
        make_hits({"a.md": "We guarantee uptime.\n", "b.md": "We make no guarantees about uptime.\n"})
    )
    data = lens.findings[1].to_json()
    assert {"phrase", "negated", "subject", "doc", "first_line", "last_line", "contradicts"} <= set(data)
    assert data["negated"] is True and data["contradicts"] == [0]


# ---------------------------------------------------------------- real documents


def test_basecamp_sla_guarantee_contradicts_terms_disclaimer(shared_dir, make_hits) -> None:
    folder = shared_dir / "documents" / "basecamp-policies"
    docs = {
        name: (folder / name).read_text(encoding="utf-8") for name in ("sla.md", "terms.md", "privacy.md")
    }
    lens = risk_lens(make_hits(docs))
    sla = [f for f in lens.findings if f.doc == "sla.md" and f.term == "guarantee"]
    assert len(sla) == 1
    sla_finding = sla[0]
    assert not sla_finding.negated
    assert "99.99%" in sla_finding.phrase and "uptime" in sla_finding.subject
    line = docs["sla.md"].split("\n")[sla_finding.first_line - 1]
    assert "guarantee" in line and "99.99%" in line

    disclaimers = [f for f in lens.findings if f.doc == "terms.md" and f.term == "guarantee" and f.negated]
    assert disclaimers, "the terms' disclaimer was not found"
    no_guarantees = [f for f in disclaimers if f.wording.lower().startswith("no guarantee")]
    assert len(no_guarantees) == 1
    disclaimer = no_guarantees[0]
    assert "guarantees" in docs["terms.md"].split("\n")[disclaimer.first_line - 1]

    i, j = lens.findings.index(sla_finding), lens.findings.index(disclaimer)
    assert j in sla_finding.contradicts and i in disclaimer.contradicts
    assert {i, j} <= {k for pair in lens.contradictions for k in pair}
    # the privacy page's "never sell" is found, and contradicts nothing
    never = [f for f in lens.findings if f.doc == "privacy.md" and f.wording.lower() == "never"]
    assert never and all(not f.negated and f.contradicts == () for f in never)


# Session 7 (heldout-uber-risk): shapes of PDF text and conditions, real-shaped
# after the Uber 10-K's risk factors (reworded, not quoted).
PDF_AND_CONDITION_CASES = [
    # a listed word broken over two lines with no space either side
    ("These ventures are risky, and we may nev\ner see any benefit from them.", [("always", False)]),
    # a negator glued to the listed word, and one glued to the word before it
    ("Some of these tools are notalways\n reliable.", [("always", True)]),
    ("We invest in it, and wecannot guarantee the tools will work.", [("guarantee", True)]),
    ("If insurers leave, we cannotguarantee\n that we could replace them.", [("guarantee", True)]),
    ("Our licensors donot give warranties on the code.", [("warranty", True)]),
    # a word inside a condition claims nothing
    ("We may have to close, unless and until the rules change to find our service fully lawful.", []),
    ("If any of the pending suits are settled badly for us, we may owe damages.", []),
    # ... but a condition that ends before the term leaves it a claim
    ("If you cancel, all your data will be deleted within 30 days.", [("all", False), ("must", False)]),
    ("Sensitive data (if applicable) and safeguards that fully protect it.", [("fully", False)]),
    # the condition's end cannot be told without a comma: the term counts
    ("If you cancel we will refund you within 30 days.", [("must", False)]),
    # a relative clause's verb is not the quantified subject's
    ("the sole venue for:\n any suit about the bylaws that is brought by a holder.", []),
    ("audits by several agencies, not all of which are formally closed.", [("all", True)]),
    ("Any photos which you share are kept and encrypted.", [("all", False)]),
    # "we'll" is "we will" (shared-policies r31): a commitment with a deadline
    ("If you close your account, we’ll erase the files within 60 days.", [("must", False)]),
    ("We'll answer every ticket within two days.", [("must", False)]),
    ("Bill’ll see it later.", []),
    # session 8 (heldout-lyft-license-risk): a negator at the end of the line above a wrapped line
    ("If the vendor leaves, wecannot\n guarantee that a new one would be found.", [("guarantee", True)]),
    ("Our team will not\n always answer at night.", [("always", True)]),
    # ... but a new sentence, or a capital after a line with no stop, starts fresh
    ("We do not sell data.\nWe guarantee that backups run.", [("guarantee", False)]),
    ("Plans we do not offer\nWe guarantee refunds.", [("guarantee", False)]),
    ("Things we do not offer\n- guaranteed refunds on custom work", [("guarantee", False)]),
    # an item of a comma list takes the list's negated verb
    ("Free plugins usually do not offer support, warranties, or updates.", [("warranty", True)]),
    ("We offer no setup fee, guaranteed delivery, and free returns.", [("guarantee", False)]),
    # a listed noun naming a product or a book-keeping item
    ("We may buy representation and warranty insurance for the deal.", []),
    ("Our warranty reserves grew with sales.", []),
    ("We warranty every bike for two years.", [("warranty", False)]),
    ("Each bike has a two-year warranty.", [("warranty", False)]),
    # "the disclaimer of warranties" names a clause; "This includes ..." goes on denying
    ("Keep a notice that points to the disclaimer of warranties.", []),
    ("## Disclaimer of Warranties", []),
    (
        "The maker offers the kit as-is and gives no warranties. This includes warranties of fitness.",
        [("guarantee", True), ("warranty", True), ("warranty", True)],
    ),
    (
        "We give no warranties. Our partners include warranties in their plans.",
        [("warranty", True), ("warranty", False)],
    ),
]


# session 9 (shared-policies r32, r33; docs/lens-gold-format.md "a deadline"): a stated time for
# the committed act besides "within N" and "by" a date
STATED_TIME_CASES = [
    ("We’ll wipe the mailbox from our servers 45 days after the plan ends.", [("must", False)]),
    ("Your handle will be released 30 days after the account closes.", [("must", False)]),
    ("Refunds will be paid no later than 10 business days after approval.", [("must", False)]),
    ("Drafts must be filed within the first 14 days of the quarter.", [("must", False)]),
    # the time may open the clause
    ("After 90 days, we’ll erase the attachments of the workspace.", [("must", False)]),
    ("Within 14 days, all invoices will be archived.", [("must", False), ("all", False)]),
    # up to 120 characters between modal and time when only an object and places stand between
    (
        "We’ll permanently remove the files in your shared workspace from our storage cluster 30 days after closure.",
        [("must", False)],
    ),
    # ... but not across a comma or a word that opens another clause
    ("We will read the request, and the team that owns the billing system replies within 30 days.", []),
    # an ordinal day (session 9, from heldout-lyft-separation-risk)
    (
        "A tenant’s notice must be in writing to the agent, and received by\nthe owner on or before the seventh day after signing.",
        [("must", False)],
    ),
    ("The lease shall become binding on the eighth day after the tenant signs it.", [("must", False)]),
    ("Rent must be paid by the 5th business day following each invoice.", [("must", False)]),
    # a duration alone, or a time with no modal, is no deadline
    ("Your data will stay with us for 60 days.", []),
    ("The address is recycled 30 days after cancellation.", []),
    ("After 30 days the trial ends.", []),
]


# session 9, from heldout-lyft-separation-risk: a listed noun that refers back through a verb, or
# names what a party did not rely on (also when the sentence began on the line above)
REFERENCE_CASES = [
    ("If a tenant breaches the promise to keep the flat tidy, the deposit is kept.", []),
    ("A buyer breaching its warranty to the seller pays the costs.", []),
    (
        "The buyer signed without reliance on any statement, assurance or promise that is not written here.",
        [],
    ),
    ("The buyer has not relied\non any statement, offer or promise made before signing.", []),
    ("The buyer relies on the seller's promise to deliver.", [("promise", False)]),  # no "any"/"no"
    ("We promise to answer.", [("promise", False)]),
]


@pytest.mark.parametrize(("text", "expected"), REFERENCE_CASES, ids=[c[0][:40] for c in REFERENCE_CASES])
def test_references_and_reliance_are_no_claims(text: str, expected: list[tuple[str, bool]]) -> None:
    assert [(m.term, m.negated) for m in find_absolutes(text)] == expected


@pytest.mark.parametrize(("text", "expected"), STATED_TIME_CASES, ids=[c[0][:40] for c in STATED_TIME_CASES])
def test_stated_times_are_deadlines(text: str, expected: list[tuple[str, bool]]) -> None:
    assert [(m.term, m.negated) for m in find_absolutes(text)] == expected


def test_incompatible_times_for_one_act_contradict(make_hits) -> None:
    hits = make_hits(
        {
            "terms.md": "Within 30 days of closure, all files will be permanently erased from our servers.\n",
            "mail.md": "Your mail stays readable for 60 days. After 60 days, we’ll permanently erase the files.\n",
            "help.md": "If you close the account, we’ll erase the files within 90 days.\n",
        }
    )
    lens = risk_lens(hits)
    pairs = {frozenset((lens.findings[i].doc, lens.findings[j].doc)) for i, j in lens.contradictions}
    # 60 days is later than the terms' 30-day deadline; the help page's 90-day deadline holds with both
    assert pairs == {frozenset({"terms.md", "mail.md"})}


@pytest.mark.parametrize(("text", "expected"), PDF_AND_CONDITION_CASES)
def test_pdf_text_shapes_and_conditions(text: str, expected: list[tuple[str, bool]]) -> None:
    found = sorted((m.term, m.negated) for m in find_absolutes(text))
    assert found == sorted(expected)


def test_a_pdf_line_that_continues_a_sentence_starts_no_quantified_subject() -> None:
    wrapped = "the state courts are the only venue for\n any suit a holder files is heard there."
    assert find_absolutes(wrapped) == []
    # a capital after a line with no stop (a URL, a title) starts a sentence
    after_url = (
        "You can check them here:\nhttps://example.com/check?d=1\nAny photos you share are kept encrypted."
    )
    assert [m.term for m in find_absolutes(after_url)] == ["all"]


def test_a_word_broken_over_lines_is_reported_whole(make_hits) -> None:
    lens = risk_lens(make_hits({"report.pdf": "We may nev\ner recover these costs."}))
    assert [(f.wording, f.first_line, f.last_line) for f in lens.findings] == [("never", 1, 2)]
