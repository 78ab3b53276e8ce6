"""No list of event words in application code: what matters to a resident, what is news
and what a happening is are judged by meaning (agents/offline/judgments.py), never by
words an engineer thought of for one town ("party|valentine", a lexicon of scores).

The scan reads every module of the service (not tests/, bench/, clients/ nor data files)
and finds word lists however they are written: a regex alternation of five or more
words, a tuple, list, set or dict of five or more lowercase words or phrases, a string of
five or more words split into a list. Each list found must be allowed below, by what its
words are and why that is no list of events (grammar: pronouns, auxiliaries,
prepositions; the calendar; names of fields and settings); a new one fails until it is
justified or replaced by a judgment of meaning.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = (
    "world",
    "llm",
    "memories",
    "agents",
    "runtime",
    "evaluations",
    "experiments",
    "integration",
    "api",
    "web",
    "smallville_project",
)
MIN_WORDS = 5
_WORD = re.compile(r"[a-z][a-z' -]*[a-z']?")
# Regex syntax around an alternative's word: groups, word boundaries, optional suffixes
# ("celebrat\w*", "part(?:y|ies)", "elect(?:ed|ion)").
_SYNTAX = re.compile(r"\\[bwsdWSB][*+?]?|\(\?[:=!<]*|[()?*+^$]|\[[^\]]*\][*+?]?|\{\d*,?\d*\}")
# Django and DRF declarations name fields, not events: their lists are not word lists.
_DECLARATIONS = {
    "fields",
    "list_display",
    "list_filter",
    "search_fields",
    "readonly_fields",
    "ordering",
    "exclude",
    "raw_id_fields",
    "list_select_related",
    "autocomplete_fields",
    "http_method_names",
    "update_fields",
    "read_only_fields",
    "INSTALLED_APPS",
}
_QUERIES = {"only", "values", "values_list", "order_by", "defer", "select_related"}

# (module, the list's first word) -> what its words are, and why they are no event words.
ALLOWED: dict[tuple[str, str], str] = {
    # Grammar: the offline stand-in's English (pronouns, auxiliaries, conjunctions,
    # adverbs, irregular verb forms, suffixes), not what anything is about.
    ("agents/offline/interview.py", "do"): "auxiliaries a yes/no question opens with",
    ("agents/offline/interview.py", "your"): "the addressee's pronouns and verbs of knowing",
    ("agents/offline/key_words.py", "st"): "ordinal and clock suffixes of a number",
    ("agents/offline/key_words.py", "that"): "common function words",
    ("agents/offline/key_words.py", "said"): "verbs of telling and function words",
    ("agents/offline/key_words.py", "whether"): "conjunctions, modals and determiners",
    ("agents/offline/key_words.py", "organ"): "verbs of making something happen (hosting)",
    ("agents/offline/key_words.py", "event"): "words a question asks with: 'any news?'",
    ("agents/offline/key_words.py", "today"): "words of when a question asks of",
    ("agents/offline/news.py", "sometimes"): "adverbs of frequency",
    ("agents/offline/news.py", "am"): "auxiliaries and modals: no third-person ending",
    ("agents/offline/news.py", "may"): "modals and function words: no third-person ending",
    ("agents/offline/news.py", "told"): "irregular past tenses",
    ("agents/offline/news.py", "got"): "irregular past tenses",
    ("agents/offline/news.py", "brought"): "irregular past tenses",
    ("agents/offline/news.py", "plan"): "verbs of making a happening happen (who hosts)",
    ("agents/offline/news.py", "s"): "verb endings of the third person",
    ("agents/offline/news.py", "an"): "determiners that open a noun phrase",
    ("agents/offline/news.py", "on"): "prepositions and auxiliaries that end a noun phrase",
    ("agents/offline/talk.py", "ch"): "verb endings that take -es",
    # The calendar's named days (a date by its name, in any town), no kinds of event.
    ("agents/offline/news.py", "new year's day"): "the calendar's named days",
    (
        "agents/offline/talk.py",
        "and",
    ): "conjunctions that open a clause; verbs a sentence goes on with",
    ("agents/offline/talk.py", "had"): "auxiliaries and modals",
    ("agents/offline/talk.py", "also"): "adverbs",
    ("agents/offline/talk.py", "was"): "words after 'I' that end in s but are no verb",
    ("agents/offline/talk.py", "he"): "pronouns",
    ("agents/offline/talk.py", "the"): "function words a possessive 'her' is not before",
    ("agents/offline/terms.py", "a"): "function words a recurring term is not",
    ("evaluations/hallucination.py", "no"): "the words of a 'no' answer",
    ("evaluations/hallucination.py", "yes"): "the words of a 'yes' answer",
    ("agents/offline/talk.py", "has"): "third-person verbs a clause opens with",
    ("agents/offline/news.py", "and"): "conjunctions that end a clause",
    ("agents/offline/news.py", "are"): "auxiliaries that take no third-person ending",
    ("agents/offline/clauses.py", "in"): "prepositions of place",
    ("agents/offline/intention.py", "will"): "modals an intention opens with",
    ("agents/offline/clock.py", "at"): "prepositions of time",
    ("agents/offline/clock.py", "until"): "prepositions of an end of time",
    ("agents/offline/clock.py", "noon"): "the clock's named times and parts of the day",
    ("agents/offline/asked_time.py", "midnight"): "the clock's named times and parts of the day",
    ("agents/offline/asked_time.py", "monday"): "the calendar's days of the week",
    ("agents/offline/asked_time.py", "one"): "numbers said as words",
    ("agents/offline/key_words.py", "coming"): "words a question about what is new asks with",
    ("world/fieldpath.py", "int"): "Python's type names in a validation message",
    # Not words of events: the identity's field names, tile layer names, CLI verbs.
    ("agents/bases/format.py", "resident"): "the fields of a scenario's arrival",
    ("agents/bases/reference.py", "age"): "the identity's field names",
    ("agents/bases/services.py", "age"): "the identity's field names",
    ("agents/projections/residents.py", "age"): "the identity's field names",
    ("api/schema.py", "get"): "HTTP methods",
    ("api/residents/views.py", "name"): "a resident's fields in a response",
    ("api/towns/views.py", "format"): "a grid town file's keys",
    ("agents/persona.py", "age"): "the identity's field names",
    ("smallville_project/environment.py", "s"): "units of a rate's period",
    ("smallville_project/gunicorn_conf.py", "debug"): "log levels",
    ("llm/dialects.py", "llamacpp"): "model servers' names",
    ("evaluations/report.py", "event"): "a report table's column headings",
    ("evaluations/report.py", "moment"): "a report table's column headings",
    ("evaluations/report.py", "fact"): "a report table's column headings",
    ("experiments/report.py", "kind"): "a report table's column headings",
    ("experiments/report.py", "variant"): "a report table's column headings",
    ("experiments/management/commands/experiment.py", "start"): "the command's actions",
    ("runtime/scenarios.py", "name"): "the fields of a scenario's arrival",
    ("world/gridtown.py", "format"): "a grid town file's keys",
    ("world/tiledtown.py", "collisions"): "a Tiled map's layer names",
    # The offline stand-in's words of places, objects and occupations (what a plan item
    # is at and with): no events, and on their way to judgments of meaning too.
    ("agents/offline/actions.py", "sofa"): "objects one sits or reads at",
    ("agents/offline/actions.py", "studying"): "activities of study",
    ("agents/offline/policy.py", "work"): "words of an occupation's workplace",
    ("agents/offline/policy.py", "lunch"): "words of a place to eat",
    ("agents/offline/terms.py", "apartment"): "kinds of place a term may name",
}


def _alternatives(text: str) -> Iterator[list[str]]:
    """Runs of five or more consecutive word alternatives in a regex."""
    run: list[str] = []
    text = re.sub(r"\[([A-Z])([a-z])\]", r"\2", text)  # "[Tt]he" -> "the"
    for piece in text.split("|"):
        head, _, tail = piece.partition("(")
        tail = re.sub(r"^\?[:=!<]*", "", tail)
        candidate = _SYNTAX.sub("", head).strip() or _SYNTAX.sub("", tail).strip()
        if _WORD.fullmatch(candidate) and len(candidate) < 40:
            run.append(candidate)
            continue
        if len(run) >= MIN_WORDS:
            yield run
        run = []
    if len(run) >= MIN_WORDS:
        yield run


def _strings(node: ast.AST) -> list[str]:
    """The lowercase words of a literal collection; a dict's keys when its values are
    literals too (a lexicon of scores, not a payload built of variables)."""
    if isinstance(node, ast.Dict):
        try:
            ast.literal_eval(
                ast.Dict(keys=[ast.Constant(0)] * len(node.values), values=node.values)
            )
        except ValueError:
            return []
        elements = node.keys
    else:
        elements = getattr(node, "elts", [])
    return [
        e.value
        for e in elements
        if isinstance(e, ast.Constant) and isinstance(e.value, str) and _WORD.fullmatch(e.value)
    ]


def _declared(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether a list is a Django or DRF declaration or a query's field names."""
    parent = parents.get(node)
    if isinstance(parent, ast.Starred):
        parent = parents.get(parent)
    if isinstance(parent, ast.Assign | ast.AnnAssign):
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        return any(isinstance(t, ast.Name) and t.id in _DECLARATIONS for t in targets)
    if isinstance(parent, ast.keyword):
        return parent.arg in _DECLARATIONS
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute):
        return parent.func.attr in _QUERIES
    return False


def word_lists(source: str) -> Iterator[tuple[int, list[str]]]:
    """(line, words) of each word list in a module's source."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set | ast.Dict):
            words = _strings(node)
            if len(words) >= MIN_WORDS and not _declared(node, parents):
                yield node.lineno, words
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for run in _alternatives(node.value):
                yield node.lineno, run
            split = node.value.split()
            parent = parents.get(node)
            if (
                isinstance(parent, ast.Attribute)
                and parent.attr == "split"
                and len(split) >= MIN_WORDS
                and all(_WORD.fullmatch(w) for w in split)
            ):
                yield node.lineno, split


def _modules() -> Iterator[Path]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def test_the_scan_finds_event_word_lists_however_they_are_written() -> None:
    source = (
        '_LEXICON = [(7, r"part(?:y|ies)|valentine\\w*|celebrat\\w*|festival|birthday")]\n'
        'EVENTS = ("party", "gala", "election", "tournament", "wedding")\n'
        'WORDS = {"storm": 8, "flood": 8, "fire": 9, "funeral": 10, "market": 5}\n'
        'KINDS = "concert lecture match fair parade".split()\n'
        'FEW = ("party", "gala")\n'
        'r = re.compile(r"\\b(?:quiz night|chess final|bake sale|regatta|debate)\\b")\n'
        'payload = {"kind": kind, "at": at, "who": who, "where": where, "when": when}\n'
        'list_display = ("name", "owner", "width", "height", "sectors")\n'
    )
    found = dict(word_lists(source))
    assert sorted(found) == [1, 2, 3, 4, 6]  # not two words, a payload, a declaration
    assert {"valentine", "festival"} <= set(found[1])
    assert found[3] == ["storm", "flood", "fire", "funeral", "market"]
    assert found[6] == ["quiz night", "chess final", "bake sale", "regatta", "debate"]


def test_application_code_holds_no_list_of_event_words() -> None:
    unjustified = []
    for path in _modules():
        module = path.relative_to(ROOT).as_posix()
        for line, words in word_lists(path.read_text(encoding="utf-8")):
            if (module, words[0]) not in ALLOWED:
                unjustified.append(f"{module}:{line}: {', '.join(words[:8])}")
    assert not unjustified, "word lists in application code:\n" + "\n".join(unjustified)
