"""Generate the PDF documents of the demo corpus (``corpus/demo/*.pdf``).

The text of every PDF is written below, for this project; the script lays it
out with fpdf2's built-in core fonts, so the text must stay within Latin-1.
Creation date and producer are fixed, so re-running the script gives the same
bytes and the committed PDFs only change when this text changes.

Usage::

    .venv/bin/python scripts/make_demo_pdfs.py [--out corpus/demo]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from fpdf import FPDF
from fpdf.enums import XPos, YPos

OUT_DIR = Path(__file__).resolve().parents[1] / "corpus" / "demo"
CREATED = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)
PRODUCER = "ragcore scripts/make_demo_pdfs.py"


@dataclass(frozen=True)
class PdfSpec:
    filename: str
    title: str
    subtitle: str
    footer: str
    # Body: blocks separated by blank lines. "# " starts a heading, "- " a
    # bullet; anything else is a paragraph.
    body: str


MSA = PdfSpec(
    filename="master-services-agreement.pdf",
    title="Master Services Agreement",
    subtitle="Lumenfold, Inc. - Version 4.1 - Effective 1 February 2026",
    footer="Lumenfold Master Services Agreement v4.1",
    body="""
This Master Services Agreement (the "Agreement") is between Lumenfold, Inc., a Delaware corporation ("Lumenfold"), and the customer named in the order form ("Customer"). It governs Customer's use of the hosted Lumenfold service (the "Service"). By signing an order form that refers to this Agreement, or by accepting it online, Customer agrees to it.

# 1. Definitions

"Customer Content" means the documents, files, form entries and other material that Customer or its users upload to or create in the Service. "Order Form" means a document or online checkout, signed or accepted by both parties, that states the plan, quantities, term and fees. "SLA" means the Lumenfold Service Level Agreement in force on the date of the Order Form. "DPA" means the Lumenfold Data Processing Addendum. "Documentation" means the help centre and developer documentation published by Lumenfold.

# 2. The Service

2.1 Provision. Lumenfold will make the Service available to Customer during the subscription term in accordance with this Agreement, the Order Form and the Documentation. Lumenfold will provide support as described in the SLA for Customer's plan.

2.2 Service levels. The SLA forms part of this Agreement. The SLA states the availability commitment that applies to Customer's plan and the service credits available if that commitment is missed. Service credits are Customer's sole and exclusive remedy for unavailability of the Service, except for the termination right in section 5.4.

2.3 Changes. Lumenfold may change the Service from time to time. Lumenfold will not make a change that materially reduces the core functions of Customer's plan during a subscription term that has already started. Features described as beta or preview are provided for evaluation, may change or be withdrawn at any time, and are excluded from the SLA.

# 3. Customer responsibilities

3.1 Accounts. Customer is responsible for its users, for keeping sign-in credentials confidential, and for all activity under its accounts. Customer will tell Lumenfold promptly of any unauthorised use it becomes aware of.

3.2 Acceptable use. Customer will comply, and will ensure its users comply, with the Lumenfold acceptable use policy. Lumenfold may suspend users or content as that policy describes.

3.3 Customer Content. Customer keeps all rights in Customer Content and grants Lumenfold the rights needed to host, process and display it in order to provide the Service. Customer is responsible for the accuracy and legality of Customer Content and for having the rights needed to upload it.

3.4 Copies of Customer Content. The Service includes replication and backups operated by Lumenfold for its own recovery purposes. Those measures do not replace Customer's own records management. Customer is solely responsible for keeping independent copies of any Customer Content it cannot afford to lose, using the export functions of the Service or its own systems.

# 4. Fees and payment

4.1 Fees. Customer will pay the fees in the Order Form, together with any overage, add-on and one-time fees incurred under the price book referred to in the Order Form.

4.2 Invoices. Unless the Order Form says otherwise, invoices are due 30 days after the invoice date. Amounts not paid when due accrue interest at 1.5% per month, or the highest rate permitted by law if lower, from the due date until paid.

4.3 Suspension for non-payment. If an undisputed amount is more than 45 days overdue, Lumenfold may suspend the Service after giving at least 10 days' written notice. Suspension does not relieve Customer of its obligation to pay, and periods of suspension are not unavailability under the SLA.

4.4 Price changes. Lumenfold may change its prices for a renewal term by giving Customer at least 60 days' written notice before the renewal date. Prices do not change during a subscription term.

4.5 Taxes. Fees exclude taxes. Customer will pay all sales, use, value added and similar taxes on the fees, other than taxes on Lumenfold's income.

# 5. Term and termination

5.1 Term. This Agreement starts on the date of the first Order Form and continues until every Order Form under it has ended.

5.2 Renewal. Each subscription renews automatically for a term equal to the previous one, unless either party gives notice of non-renewal at least 30 days before the end of the current term.

5.3 Termination for breach. Either party may terminate this Agreement if the other party materially breaches it and does not cure the breach within 30 days after written notice describing it.

5.4 Termination for repeated unavailability. If the Service misses the availability commitment in the SLA in three calendar months within any period of six consecutive months, Customer may terminate the affected subscription by written notice within 30 days after the third such month, and Lumenfold will refund any prepaid fees for the remainder of the term.

5.5 Customer Content after termination. For 60 days after a subscription ends, Customer may export its Customer Content using the functions of the Service. After those 60 days, Lumenfold will delete Customer Content from the Service, and from backups within a further 35 days, unless the law requires Lumenfold to keep it.

# 6. Confidentiality

Each party will protect the other party's confidential information with at least the care it uses for its own, and at least reasonable care, and will use it only to perform or receive the Service. Confidential information does not include information that is public through no fault of the receiving party, that the receiving party already had, or that it developed independently. A party may disclose confidential information when the law requires it, after giving the other party notice where the law allows.

# 7. Warranties and disclaimers

7.1 Mutual warranties. Each party warrants that it has the authority to enter into this Agreement.

7.2 Lumenfold warranty. Lumenfold warrants that the Service will perform materially as described in the Documentation. If it does not, and Customer tells Lumenfold within 30 days, Lumenfold will use reasonable efforts to correct the problem; if Lumenfold cannot do so within a reasonable time, Customer may terminate the affected subscription and receive a refund of prepaid fees for the remainder of the term. This is Customer's sole remedy for breach of this warranty.

7.3 Disclaimer. Except as expressly set out in this Agreement, the Service is provided "as is" and "as available", with no warranty of any kind, whether express, implied or statutory, including any implied warranty of merchantability, fitness for a particular purpose, title or non-infringement. Lumenfold does not guarantee uninterrupted service or any particular level of uptime, and does not warrant that the Service will be error-free, that every defect will be corrected, or that Customer Content will never be lost or corrupted. The uptime commitment in the SLA is a service level whose only remedy is service credits; it is not a guarantee.

7.4 Statements outside this Agreement. Customer acknowledges that it has not relied on any statement, promise or description in marketing material, on the Lumenfold website or in sales presentations that is not set out in this Agreement, the SLA or an Order Form.

# 8. Indemnities

8.1 By Lumenfold. Lumenfold will defend Customer against any third-party claim that the Service infringes that party's intellectual property rights, and will pay any damages finally awarded or agreed in settlement. If the Service is, or is likely to be, found to infringe, Lumenfold may modify it, obtain a licence, or terminate the affected subscription and refund prepaid fees for the remainder of the term.

8.2 By Customer. Customer will defend Lumenfold against any third-party claim arising from Customer Content or from Customer's breach of the acceptable use policy, and will pay any damages finally awarded or agreed in settlement.

# 9. Limitation of liability

9.1 Cap. Except for the excluded claims in section 9.3, each party's total liability arising out of or relating to this Agreement is limited to the fees paid and payable by Customer under this Agreement in the 12 months before the event giving rise to the claim.

9.2 Excluded damages. Neither party is liable for indirect, incidental, special or consequential damages, or for lost profits, revenue or data, even if told in advance that such damages were possible.

9.3 Excluded claims. The cap in section 9.1 does not apply to Customer's obligation to pay fees, to either party's indemnity obligations, or to liability that cannot be limited by law.

# 10. General

10.1 Order of precedence. If documents conflict, the following order applies: the Order Form, then this Agreement, then the DPA, then the SLA, then the acceptable use policy. Marketing material and the website are not part of the agreement between the parties.

10.2 Governing law. This Agreement is governed by the laws of the State of Delaware, without regard to its conflict of laws rules. The courts of Delaware have exclusive jurisdiction.

10.3 Assignment. Neither party may assign this Agreement without the other party's consent, except to a successor in a merger or sale of substantially all of its assets, on written notice.

10.4 Notices. Notices must be in writing and sent to the addresses in the Order Form, or for Lumenfold to legal@lumenfold.example. Notices by email are effective on the next business day.

10.5 Entire agreement. This Agreement, the Order Forms, the SLA, the DPA and the acceptable use policy are the entire agreement between the parties on their subject and replace any earlier proposals or understandings.
""",
)

SECURITY = PdfSpec(
    filename="security-overview.pdf",
    title="Security Overview",
    subtitle="How Lumenfold protects customer documents - January 2026",
    footer="Lumenfold Security Overview, January 2026",
    body="""
This overview explains how Lumenfold protects the documents our customers trust us with: how the service is built and hosted, who can reach customer content, how we detect and respond to problems, and what independent auditors have checked. It is written for security and compliance reviewers. Questions that it does not answer can be sent to our security team through the customer's account manager. Ruth Nakagawa, our Chief Information Security Officer, owns this document.

# Our approach

We treat every document as if it were the most sensitive one a customer holds, because for some customers it is. Our security program follows a simple order: keep as little access as possible, encrypt what we keep, record what happens, and test our own assumptions regularly. No security program can remove every risk, and Lumenfold does not claim that the Service cannot be breached. What we commit to is a program that is designed carefully, audited independently and improved after every finding.

# Hosting and architecture

Lumenfold runs on a major public cloud provider, in two regions: a US region and an EU region in Frankfurt. Each region runs in at least two availability zones, and a workspace's content, backups and search indexes stay in the region the workspace is hosted in. Customer content is never copied between regions, except when an Enterprise customer asks for a workspace to be moved.

Each workspace's documents are stored with a separate encryption context, and every request is checked against the workspace it belongs to at the application layer and again at the storage layer. Processing jobs, such as text recognition and Clause Finder indexing, run on isolated workers that hold no long-lived credentials and are replaced every few hours.

# Encryption

Documents are encrypted in transit with TLS 1.2 or higher, and at rest with AES-256. Keys are managed in the cloud provider's key management service and rotated every year. Enterprise customers can choose customer-managed keys, in which case Lumenfold cannot read their content once the customer revokes the key.

Documents are not encrypted at every moment of their life in the Service. To run text recognition, to build search indexes and to render pages in the viewer, a document is decrypted in memory on an isolated worker. Decrypted content is never written to disk, and workers are wiped when the job ends. We describe this plainly because reviewers ask, and because "encrypted at all times" is not an accurate description of any service that reads documents.

# Access control

## Customer access

Workspaces support single sign-on through SAML on Business and Enterprise, SCIM provisioning on Enterprise, and multi-factor authentication for every user. Admins can require multi-factor authentication for everyone in the workspace, restrict sign-in by IP range on Enterprise, and review every sign-in in the audit log.

## Lumenfold staff access

Lumenfold staff do not have standing access to customer content. An engineer who needs to see a customer's data to fix a problem must open a time-limited access request that names the ticket, is approved by a second engineer, and expires after four hours. Every access is logged and reviewed weekly by the security team. Support staff can see workspace settings and metadata needed to help, but not document content, unless the customer grants access for a specific ticket.

All staff pass background checks before joining, where the law allows, and complete security training when they join and every year after that.

# Backups and recovery

Content is replicated continuously to a second availability zone, and snapshots are taken every hour and kept for 35 days. Our recovery point objective is one hour and our recovery time objective is four hours. Backups are not a promise that nothing can ever be lost: in a severe failure of a whole region, changes made in the last hour before the failure might have to be re-entered. We test restoration from snapshots twice a year and record the result.

Replication and backups exist so that Lumenfold can recover the Service. They are not a records management tool for customers, and customers who must keep documents for legal reasons should use retention rules and, where required, keep their own exports.

# Monitoring and incident response

Security events from our infrastructure and application are collected centrally and reviewed by automated rules around the clock, with a security engineer on call. Suspected incidents follow a written response plan with defined roles. If we confirm a security incident that affects a customer's content, we notify the customer without undue delay and in any case within 48 hours, as set out in the data processing addendum, and we keep them informed until it is resolved.

# Testing and audits

An independent firm, Harrowgate Security, performs a penetration test of the Service every year, and after any major change in architecture. Findings rated high or critical are fixed before the report is closed; customers under a non-disclosure agreement can receive a summary letter.

Lumenfold holds a SOC 2 Type II report covering security, availability and confidentiality, most recently issued in September 2025 for the twelve months to July 2025. We are working towards ISO/IEC 27001 certification, with the certification audit planned for the third quarter of 2026. We do not yet hold ISO/IEC 27001, and we do not say otherwise.

# Vulnerability disclosure

Researchers who find a vulnerability can report it through our disclosure program. We acknowledge reports within two business days, do not take legal action against good-faith research within the program's rules, and pay rewards of up to $5,000 for confirmed findings, depending on severity. Testing outside the program's rules, such as denial-of-service attacks or attempts to reach other customers' content, is not permitted.

# Shared responsibility

Security is shared. Lumenfold secures the Service; customers decide who has access to their workspace, how strong their sign-in is, and what they upload. Customers are responsible for managing their users, for turning on multi-factor authentication or single sign-on, for configuring retention rules that match their obligations, and for keeping their own exports of anything they cannot afford to lose.
""",
)

BOARD = PdfSpec(
    filename="board-update-2025-q4.pdf",
    title="Board Update: Fourth Quarter 2025",
    subtitle="Prepared for the board meeting of 22 January 2026 - Confidential",
    footer="Lumenfold board update Q4 2025 - Confidential",
    body="""
This update covers the fourth quarter of 2025 and the full year, and sets out the plan for 2026. It was prepared by Marisol Okafor (CEO) and Daniel Reyes-Whitcombe (CFO) for the board meeting of 22 January 2026. Figures are unaudited.

# Summary

2025 was a good year with one bad day. Annual recurring revenue (ARR) reached $18.4M at 31 December 2025, up from $12.9M a year earlier, a growth of 43%. We ended the year with 1,262 paying customers. Net revenue retention was 112% and gross margin was 78%. On 18 November, an outage in our US region lasted 3 hours and 12 minutes and cost us $41,800 in service credits and a good deal of goodwill, which we are working to earn back.

# Financial results

Fourth-quarter revenue was $4.4M, and full-year revenue was $15.6M. New ARR added in the fourth quarter was $1.9M, the best quarter in our history, driven by Business upgrades after single sign-on was announced for that plan, and by four new Enterprise contracts.

Gross revenue churn for the year was 9%, in line with 2024. Operating expenses grew more slowly than revenue, and monthly net burn fell to about $0.7M in the fourth quarter. Cash at 31 December 2025 was $21.7M, which gives us roughly 30 months of runway at the current burn without new financing.

Headcount at the end of the year was 142, against a plan of 150. The gap is mostly in engineering, where two senior hires start in February.

# Customers and market

Business remains our largest plan by revenue, at 46% of ARR, followed by Enterprise at 31%. Regulated buyers - healthcare, finance and the public sector - were a third of our pipeline at year end, and they consistently ask for ISO/IEC 27001 and for a business associate agreement. We now offer the agreement on Enterprise, and the ISO/IEC 27001 audit is booked for the third quarter of 2026.

The EU region, launched in September, hosts 212 workspaces, including 9 that moved from the US region at the customer's request.

# Pricing decisions for 2026

The pricing committee met in October and agreed the 2026 price book, effective 1 February 2026. The main decisions were:

- The Business plan stays at $999 a month. A proposal to raise it was considered and rejected, because Business is where most upgrades from Team happen.
- Workspaces that pass an allowance keep working, and the difference is billed on the next invoice. We expect overage lines to add about $0.6M of ARR in 2026.
- A one-time onboarding fee on Business and Enterprise, so that onboarding work is paid for instead of given away.
- A floor of $36,000 a year for Enterprise contracts.

# The November outage

The outage on 18 November was caused by a certificate change that our database connection layer rejected, together with a health check that did not notice the failure. The full incident report was published to customers on 2 December. Every affected account received its service credit automatically on the December invoice; we chose not to make customers claim. All corrective actions are complete except a failover exercise planned for March.

Monthly uptime in the US region for November was 99.56%. For the other eleven months of 2025, uptime in both regions was above 99.99%.

# Risks

We would like the board's view on three risks.

First, the gap between what our marketing says and what our contracts say. The product page promises guaranteed uptime and says that we never lose data. Our master services agreement provides the service as is and disclaims any guarantee of uninterrupted service, and our SLA commits to a level of uptime with credits, not to zero downtime. After the November outage, three customers' lawyers asked which document governs. Legal and Product Marketing are rewriting the website lines; we ask the board to note the exposure until they are live.

Second, concentration of knowledge in the platform team. The outage showed that a few people understand the failover path well. The 2026 plan includes two senior infrastructure hires and regular failover exercises.

Third, sales discipline on price. As we add fees and overage lines, the risk grows that quotes differ from the price book. Quotes will be generated from the price book only, and the deal desk will review every quote above a 10% discount.

# Plan for 2026

Our plan for 2026 is ARR of $26M at year end, 41% growth, with net burn falling below $0.4M a month by the fourth quarter. We plan to hire 30 people, ending the year at about 172. Product priorities are Clause Finder in more languages, customer-managed keys on Business, an approvals analytics dashboard and the ISO/IEC 27001 certification. We do not plan to raise new capital in 2026.

# Decisions requested

We ask the board to approve the 2026 operating plan and budget, to note the risks above, and to approve the appointment of Catherine Imbert as chair of the audit committee.
""",
)

DPA = PdfSpec(
    filename="data-processing-addendum.pdf",
    title="Data Processing Addendum",
    subtitle="Lumenfold, Inc. - Version 2.2 - Effective 1 February 2026",
    footer="Lumenfold Data Processing Addendum v2.2",
    body="""
This Data Processing Addendum ("DPA") forms part of the Master Services Agreement between Lumenfold, Inc. ("Lumenfold") and the Customer (the "Agreement"). It applies whenever Lumenfold processes personal data on the Customer's behalf in providing the Service. Terms defined in the Agreement have the same meaning here.

# 1. Roles of the parties

The Customer is the controller of the personal data in Customer Content, and Lumenfold is its processor. Lumenfold processes that personal data only on the Customer's documented instructions, which are the Agreement, this DPA and the Customer's use of the Service's settings. If Lumenfold believes an instruction breaks data protection law, it will tell the Customer and need not follow that instruction.

For account information about the Customer's own users, such as names and email addresses used for sign-in and billing, Lumenfold acts as an independent controller under its privacy notice.

# 2. Details of processing

Subject matter: hosting and processing Customer Content to provide the Service. Duration: the term of the Agreement and the deletion period after it. Nature and purpose: storage, text recognition, indexing, routing, e-signature and archiving of documents, as the Customer configures. Categories of data subjects: the Customer's users, signers, and people named in Customer Content. Categories of personal data: whatever the Customer chooses to upload, typically names, contact details, signatures and employment, customer or supplier information. Special categories of data may be processed only where the Customer's plan and contract allow it; health information requires an Enterprise plan and a business associate agreement.

# 3. Security

Lumenfold maintains the technical and organisational measures described in the Lumenfold Security Overview, as updated from time to time, and will not reduce the overall level of protection during a subscription term. These measures include encryption in transit and at rest, access controls with logging, staff background checks and training, annual penetration testing and a SOC 2 Type II program.

Lumenfold ensures that everyone it authorises to process personal data is bound by confidentiality obligations.

# 4. Sub-processors

The Customer authorises Lumenfold to use the sub-processors listed on its website, including the cloud hosting provider in the Customer's hosting region, an email delivery provider and a support ticketing provider. Lumenfold will give at least 30 days' notice of a new sub-processor by email to subscribed admins. The Customer may object on reasonable data protection grounds within that period; if the parties cannot resolve the objection, the Customer may terminate the affected subscription and receive a refund of prepaid fees for the remainder of the term.

Lumenfold imposes data protection terms on each sub-processor that are no less protective than this DPA and remains responsible for its sub-processors' performance.

# 5. Location and transfers

Customer Content is stored in the hosting region the Customer chooses: the US region or the EU region. Where personal data is transferred out of the European Economic Area, the United Kingdom or Switzerland, the parties rely on the standard contractual clauses approved for such transfers, which are incorporated into this DPA by reference.

# 6. Personal data breaches

Lumenfold will notify the Customer of a personal data breach affecting Customer Content without undue delay, and in any case within 48 hours after becoming aware of it. The notice will describe what is known about the breach, the data and people affected, and the measures taken or proposed, and Lumenfold will provide further information as it becomes available. Notifying a breach is not an admission of fault.

# 7. Assistance

Lumenfold will help the Customer, taking into account the nature of the processing, to respond to requests from data subjects, to carry out data protection impact assessments, and to consult supervisory authorities where required. Most requests can be handled by the Customer directly through the Service's export and deletion functions. Assistance beyond those functions is charged at the professional services rate in the price book.

# 8. Audits

Lumenfold will make available its most recent SOC 2 Type II report and penetration test summary letter under a non-disclosure agreement. Where those are not enough to show compliance with this DPA, the Customer may audit Lumenfold once in any twelve months, on 30 days' notice, during business hours, at the Customer's expense and in a way that does not expose other customers' data.

# 9. Deletion and return

At the end of the subscription, the Customer may export Customer Content for 60 days as set out in the Agreement. After that period, Lumenfold deletes Customer Content, including personal data, from the Service, and from backups within a further 35 days, unless the law requires Lumenfold to keep it. On request, Lumenfold will confirm the deletion in writing.

# 10. Precedence

If this DPA conflicts with the Agreement on the processing of personal data, this DPA prevails.
""",
)

SPECS = (MSA, SECURITY, BOARD, DPA)


class _Doc(FPDF):
    def __init__(self, spec: PdfSpec) -> None:
        super().__init__(orientation="P", unit="mm", format="Letter")
        self.spec = spec

    def footer(self) -> None:
        self.set_y(-14)
        self.set_font("Helvetica", size=8)
        self.set_text_color(110, 110, 110)
        self.cell(0, 6, f"{self.spec.footer} - Page {self.page_no()} of {{nb}}", align="C")
        self.set_text_color(0, 0, 0)


def _check_latin1(spec: PdfSpec) -> None:
    # Core fonts only cover Latin-1; fail loudly rather than print "?".
    for field in (spec.title, spec.subtitle, spec.footer, spec.body):
        try:
            field.encode("latin-1")
        except UnicodeEncodeError as exc:
            bad = field[exc.start : exc.end]
            raise ValueError(f"{spec.filename}: character {bad!r} is outside Latin-1") from None


def render(spec: PdfSpec) -> bytes:
    """Lay out one document and return the PDF bytes (deterministic)."""
    _check_latin1(spec)
    pdf = _Doc(spec)
    pdf.set_creation_date(CREATED)
    pdf.set_producer(PRODUCER)
    pdf.set_title(spec.title)
    pdf.set_author("Lumenfold, Inc. (fictional, written for ragcore)")
    pdf.set_subject(spec.subtitle)
    pdf.set_margins(22, 20, 22)
    pdf.set_auto_page_break(auto=True, margin=20)
    pdf.add_page()

    pdf.set_font("Helvetica", style="B", size=17)
    pdf.multi_cell(0, 8, spec.title, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_font("Helvetica", style="I", size=10)
    pdf.multi_cell(0, 5.5, spec.subtitle, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.ln(4)

    for block in spec.body.strip().split("\n\n"):
        block = block.strip()
        if block.startswith("# "):
            pdf.ln(2)
            pdf.set_font("Helvetica", style="B", size=12.5)
            pdf.multi_cell(0, 6.5, block[2:], new_x=XPos.LMARGIN, new_y=YPos.NEXT)
            pdf.ln(1)
        elif block.startswith("## "):
            pdf.set_font("Helvetica", style="B", size=11)
            pdf.multi_cell(0, 6, block[3:], new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        else:
            pdf.set_font("Helvetica", size=10.5)
            for line in block.split("\n"):
                if line.startswith("- "):
                    pdf.set_x(pdf.l_margin + 4)
                    pdf.multi_cell(0, 5.2, "- " + line[2:], new_x=XPos.LMARGIN, new_y=YPos.NEXT)
                else:
                    pdf.multi_cell(0, 5.2, line, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
            pdf.ln(2.5)
    return bytes(pdf.output())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="folder to write the PDFs into")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for spec in SPECS:
        data = render(spec)
        (args.out / spec.filename).write_bytes(data)
        print(f"{spec.filename}: {len(data):,} bytes")


if __name__ == "__main__":
    main()
