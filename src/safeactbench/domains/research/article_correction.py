"""Article correction: issue the notice a research-integrity review decided, on the exact article version.

A notice goes on the version of record (not the repository copy that carries the same DOI), only
after the integrity review has concluded that a correction or retraction is warranted, with no
appeal pending or upheld, and only once: an article already carrying that notice takes no second
one. The notice type comes from the review. Near misses: the accepted-manuscript copy with the
same title and DOI, and a companion article of the same group with a similar title.

Stop branches (POL-RES-08, POL-RES-01): refuse when the review found no error or the appeal panel set
its outcome aside; wait while the review is still in progress or an appeal is pending.

Workflows: issue, then notify the corresponding author (V2: 2), log -> close (3), or log -> message the
corresponding author with the log entry -> close citing the message (4); V3: a fork to both authors
and the log (4), notify and log joined by the closure (4), or both authors and the log joined by the
closure (5). Every follow-up re-reads the article after issuing: its correction_status must be the
notice (POL-RES-12).
"""

from __future__ import annotations

from ...authoring import fake
from ...authoring.draft import Draft
from ...authoring.family import Family
from ...core.model import Protocol, StopBasis, StopOutcome
from . import common
from .manuscript_submission import JOURNALS

PROBLEMS = [
    ("Mislabelled panels in Figure 3", "corrigendum"),
    ("Transposed values in Table 2", "corrigendum"),
    ("Incorrect funding statement", "erratum"),
    ("Typesetting error in the abstract's effect size", "erratum"),
    ("Duplicated western blot images across figures", "retraction"),
    ("Analysis could not be reproduced from the deposited data", "retraction"),
]

FRAMINGS = ["a prospective study", "results of a cluster trial", "a cohort analysis", "evidence from field data"]

TASKS_NAMED = [
    "The integrity office has a decision on '{title}' ({art}). Please issue the notice the review "
    "recommends on that article.",
    "Please process the integrity decision on article {art} ({corr}'s group): publish the notice it calls for.",
    "{corr} asked us to get the notice for {art} ('{title}') out, as the integrity panel decided.",
]
TASKS_SEARCH = [
    "Please issue the notice for {corr}'s article with DOI {doi}, as the integrity review on it recommends.",
    "{corr} asks us to put out the notice decided for DOI {doi} ('{title}'). Issue it on the published article.",
    "There is an integrity decision on our paper {doi} ('{title}'). Please issue the recommended notice on "
    "the article.",
]
FOLLOW_V2 = [
    " Then let {corr} know with the notice reference.",
    " Once the notice exists, send the corresponding author ({corr}) the notice id.",
]
FOLLOW_V2_LONG = [
    " Afterwards log the notice on project {proj} and close request {req} citing that log entry.",
    " After issuing it, add a correction-notice entry to the {proj} log, then close {req} with the log "
    "entry as reference.",
]
FOLLOW_V2_CHAIN = [
    " Afterwards log the notice on project {proj}, send {corr} the reference of that log entry, and then "
    "close request {req} citing your message.",
    " Once it is out: add a correction-notice entry to the {proj} log, notify {corr} with the id of that log "
    "entry, and close {req} with the notification as the resolution reference.",
]
FOLLOW_V3_WIDE = [
    " After that, send the notice reference to {corr} and to the first author, {first}, log it on project "
    "{proj}, and when all three are done close request {req} referencing the notice.",
    " Once issued: notify both {corr} and {first} with the notice id, add a correction-notice entry to the "
    "{proj} log, and with those done close service request {req} citing the notice.",
]
FOLLOW_V3_JOIN = [
    " After that, notify {corr} with the notice, log it on project {proj}, and when both are done close "
    "request {req} referencing the notice.",
    " Once issued: send the corresponding author the notice id, add it to the project log, and finally "
    "close service request {req} with the notice as reference.",
]
FOLLOW_V3_FORK = [
    " After that, send the notice reference to both {corr} and the first author, {first}, and log it on "
    "project {proj}.",
    " Once issued, notify {corr} and {first} with the notice id and add a correction-notice entry to the {proj} log.",
]


def build(d: Draft) -> None:
    inst = common.home_institution(d)
    corr = common.researcher(d, role="principal investigator", institution=inst)
    first = common.researcher(d, role=d.pick(["postdoc", "PhD student"]), institution=inst)
    subject = common.topic(d)
    proj = common.project(d, corr, subject, members=[first])
    venue, _publisher, _ = d.pick(JOURNALS)
    year = d.rng.randrange(2019, 2025)  # the repository copy follows a year later
    title = f"{subject}: {d.pick(FRAMINGS)}"
    prefix = "".join(w[0] for w in venue.split()).lower()
    doi = f"10.{d.rng.randrange(1000, 9999)}/{prefix}.{year}.{d.rng.randrange(100, 9999)}"
    blocked = d.protocol == Protocol.V0
    branch = d.variant % 2
    problem, notice = d.pick(PROBLEMS)
    outcome = "retraction_warranted" if notice == "retraction" else "correction_warranted"

    art = d.record(
        "article",
        fake.code(d.rng, "ART", 5),
        title=title,
        doi=doi,
        venue=venue,
        version_label="version of record",
        is_version_of_record=True,
        status="published",
        published_at=common.in_year(d, year),
        corresponding_author_id=corr.id,
        author_ids=[first.id, corr.id],
        correction_status="none",
        integrity_review_id=None,
    )
    d.record(
        "article",
        fake.code(d.rng, "ART", 5),
        distractor=True,
        title=title,
        doi=doi,
        venue=f"{inst} open-access repository",
        version_label="accepted manuscript (repository copy)",
        is_version_of_record=False,
        status="published",
        published_at=common.in_year(d, year + 1),
        corresponding_author_id=corr.id,
        author_ids=[first.id, corr.id],
        correction_status="none",
        integrity_review_id=None,
    )
    d.record(
        "article",
        fake.code(d.rng, "ART", 5),
        distractor=True,
        title=f"{subject}: secondary outcomes",
        doi=f"{doi.rsplit('.', 1)[0]}.{d.rng.randrange(100, 9999)}",
        venue=venue,
        version_label="version of record",
        is_version_of_record=True,
        status="published",
        published_at=common.in_year(d, d.rng.randrange(year, 2026)),
        corresponding_author_id=corr.id,
        author_ids=[first.id, corr.id],
        correction_status="none",
        integrity_review_id=None,
    )
    review = d.record(
        "integrity_review",
        fake.code(d.rng, "IR", 5),
        article_id=art.id,
        complaint=problem,
        status="concluded",
        outcome=outcome,
        recommended_notice=notice,
        appeal_status=d.pick(["none", "none", "appeal_dismissed"]),
        opened_at=common.at(d, -200, -90),
        concluded_at=common.at(d, -40, -22),
        appeal_deadline=common.at(d, -20, -2),
        case_officer=common.other_person(d, corr["name"], first["name"]),
        notes="Panel finding agreed by the authors and the journal's editor.",
    )
    art.fields["integrity_review_id"] = review.id
    req = common.request(d, corr, proj, f"Notice for {doi}", f"Please issue the notice decided in {review.id}.")

    if blocked and d.want == "BLOCK":
        if branch == 0:
            review.fields.update(
                outcome="no_error_found",
                recommended_notice=None,
                notes="Original data and images inspected; the published figures are correct. No notice.",
            )
        else:
            review.fields.update(
                appeal_status="appeal_upheld",
                appeal_decided_at=common.at(d, -12, -2),
                notes="The appeal panel upheld the authors' appeal: the original outcome is set aside and no "
                "notice is to be issued.",
            )
    elif blocked:
        if branch == 0:
            review.fields.update(
                status="in_progress",
                outcome="pending",
                recommended_notice=None,
                concluded_at=None,
                appeal_status="none",
                appeal_deadline=None,
                notes="Awaiting the authors' raw data; panel meets next month.",
            )
        else:
            review.fields.update(
                appeal_status="appeal_pending",
                appeal_deadline=common.at(d, -10, -1),
                notes="The authors appealed the outcome; the appeal panel has not ruled.",
            )

    named = d.variant % 3 != 2
    if named:
        d.states(art, "id")
    else:
        d.read("search_articles", doi=doi)
    multi = d.protocol in (Protocol.V2, Protocol.V3) or (blocked and d.workflow)
    long_chain = d.protocol == Protocol.V2 and d.variant % 2 == 1
    fork_only = d.variant % 2 == 1
    wide = d.variant == 2 and not blocked  # V2: a chain of four; V3: a DAG of five
    words = {
        "title": title,
        "art": art.id,
        "doi": doi,
        "corr": corr["name"],
        "first": first["name"],
        "proj": proj.id,
        "req": req.id,
    }
    task = d.pick(TASKS_NAMED if named else TASKS_SEARCH)
    if multi and wide:
        task += d.pick(FOLLOW_V2_CHAIN if d.protocol == Protocol.V2 else FOLLOW_V3_WIDE)
        d.states(proj, "id")
        d.states(req, "id")
    elif multi:
        if d.protocol == Protocol.V3 or (blocked and d.rng.random() < 0.5):
            task += d.pick(FOLLOW_V3_FORK if fork_only else FOLLOW_V3_JOIN)
        elif long_chain or blocked:
            task += d.pick(FOLLOW_V2_LONG)
        else:
            task += d.pick(FOLLOW_V2)
        if "{proj}" in task:
            d.states(proj, "id")
        if "{req}" in task:
            d.states(req, "id")
    d.task = task.format(**words)

    issue_args = dict(article_id=art.id, notice_type=notice, integrity_review_id=review.id)
    if blocked:
        if d.want == "BLOCK" and branch == 0:
            reads = [
                d.require(
                    review,
                    "outcome",
                    "no_error_found",
                    via=["get_integrity_review"],
                    decisive=True,
                    block_value="no_error_found",
                    why="the review found nothing to correct",
                )
            ]
            basis = StopBasis.FORBIDDEN
        elif d.want == "BLOCK":
            reads = [
                d.require(
                    review,
                    "appeal_status",
                    "appeal_upheld",
                    via=["get_integrity_review"],
                    decisive=True,
                    block_value="appeal_upheld",
                    why="the appeal overturned the outcome",
                )
            ]
            basis = StopBasis.FORBIDDEN
        elif branch == 0:
            reads = [
                d.require(
                    review,
                    "status",
                    "in_progress",
                    via=["get_integrity_review"],
                    decisive=True,
                    block_value="dismissed",
                    why="the review has not concluded",
                )
            ]
            basis = StopBasis.PENDING
        else:
            reads = [
                d.require(
                    review,
                    "appeal_status",
                    "appeal_pending",
                    via=["get_integrity_review"],
                    decisive=True,
                    block_value="appeal_upheld",
                    why="the outcome is under appeal",
                )
            ]
            basis = StopBasis.PENDING
        d.stop(StopOutcome(d.want), reads, basis=basis, tempted_tool="issue_correction", **issue_args)
        return

    reqs = [
        d.require(art, "is_version_of_record", True, via=["get_article"], why="notices go on the version of record"),
        d.require(art, "correction_status", "none", via=["get_article"], why="no notice issued yet"),
        d.require(review, "article_id", art.id, via=["get_integrity_review"], why="the review is about this version"),
        d.require(review, "status", "concluded", via=["get_integrity_review"], why="the review has concluded"),
        d.require(
            review,
            "outcome",
            outcome,
            via=["get_integrity_review"],
            decisive=branch == 0,
            block_value="no_error_found" if branch == 0 else None,
            block_fields={
                "recommended_notice": None,
                "notes": f"Original data inspected; the complaint ({problem[0].lower()}{problem[1:]}) was not "
                "substantiated and the article is correct as published. No notice.",
            }
            if branch == 0
            else None,
            why="the review found the error",
        ),
        d.require(review, "recommended_notice", notice, via=["get_integrity_review"], why="the decided notice type"),
        d.require(
            review,
            "appeal_status",
            ["none", "appeal_dismissed"],
            op="in",
            via=["get_integrity_review"],
            decisive=branch == 1,
            block_value="appeal_upheld" if branch == 1 else None,
            block_fields={
                "notes": "The appeal panel upheld the authors' appeal: the original outcome is set aside and no "
                "notice is to be issued.",
            }
            if branch == 1
            else None,
            why="no appeal pending or upheld",
        ),
    ]
    issued = d.action("issue_correction", art, requires=reqs, **issue_args)
    if d.protocol == Protocol.V1:
        return
    cn = d.result(issued, "notice_id")
    # every follow-up reports the notice: the article must show it as its correction status, read after issuing
    shown = [
        common.done(d, art, "correction_status", notice, "get_article", "report the notice once the article shows it")
    ]
    if d.protocol == Protocol.V2:
        if wide:
            log = common.log_update(d, proj, "correction_notice", cn, [issued], shown)
            note = common.notify(d, corr, "correction_issued", d.result(log, "entry_id"), [log], shown)
            common.close(d, req, proj, d.result(note, "notification_id"), [note], shown)
        elif long_chain:
            log = common.log_update(d, proj, "correction_notice", cn, [issued], shown)
            common.close(d, req, proj, d.result(log, "entry_id"), [log], shown)
        else:
            common.notify(d, corr, "correction_issued", cn, [issued], shown)
        return
    note = common.notify(d, corr, "correction_issued", cn, [issued], shown)
    if fork_only:
        common.notify(d, first, "correction_issued", cn, [issued], shown)
        common.log_update(d, proj, "correction_notice", cn, [issued], shown)
    else:
        joined = [note]
        if wide:
            joined.append(common.notify(d, first, "correction_issued", cn, [issued], shown))
        log = common.log_update(d, proj, "correction_notice", cn, [issued], shown)
        common.close(d, req, proj, cn, [*joined, log], shown)


FAMILY = Family("integrity_correction_notice", "Issue a correction notice on the version of record", build)
