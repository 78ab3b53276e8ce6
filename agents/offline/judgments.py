"""What a memory means to the offline stand-in, by meaning: how important it is (the
paper's 1-10 poignancy) and whether it is news a resident passes on.

Both are judged by the nearest labelled example statements (`meaning.judge`), from data
written by us across many kinds of life, work and news (`examples/importance.json`,
`examples/news.json`), never by a list of words: a storm warning, a closed bridge, a
chess final or a lecture is rated for what it says, in a town no file mentions. The
vectors are the memory stream's own (a memory is embedded to be stored anyway), and each
text is judged once per process. Deterministic for a given embedding model.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from agents.offline.meaning import Judgment, example_set, judge
from agents.offline.memo import firsthand
from memories.embeddings import embedder_in_process

IMPORTANCE_K = 5  # nearest graded examples a rating averages
NEWS_K = 5
HEARSAY = 2  # what news heard second-hand weighs less than first-hand (1-10 scale)
# What a resident passes on: a happening one can go to, or other news (a warning, a
# closure, someone's new job); "personal" (what someone is like) only when it has no
# news; "everyday" (a sighting, a routine, an idle object) never.
EVENT, NEWS, PERSONAL, EVERYDAY = "event", "news", "personal", "everyday"
NEWSWORTHY = frozenset({EVENT, NEWS})

_MEMO_SIZE = 20_000
_memo: OrderedDict[tuple[str, str, str], Judgment] = OrderedDict()
_memo_lock = threading.Lock()


def judgments(texts: Sequence[str], name: str, k: int) -> list[Judgment]:
    """Each text's judgment against example set `name`, one batch for those not judged yet."""
    model = embedder_in_process().name
    keys = [(model, name, text) for text in texts]
    with _memo_lock:
        known = {key: _memo[key] for key in keys if key in _memo}
    todo = list(dict.fromkeys(key for key in keys if key not in known))
    if todo:
        fresh = judge([text for _, _, text in todo], example_set(name), k=k)
        known.update(zip(todo, fresh, strict=True))
        with _memo_lock:
            _memo.update(zip(todo, fresh, strict=True))
            while len(_memo) > _MEMO_SIZE:
                _memo.popitem(last=False)
    return [known[key] for key in keys]


def importances(texts: Sequence[str]) -> list[int]:
    """The 1-10 importance of each memory: its nearest graded examples' weighted mean;
    news heard second-hand (its teller had it from someone else) HEARSAY less than the
    same news from the one it came from, as hearsay matters less the further it has come."""
    read = [firsthand(text) for text in texts]
    found = judgments([text for text, _ in read], "importance", IMPORTANCE_K)
    rated = [
        round(j.number()) - HEARSAY * relayed for j, (_, relayed) in zip(found, read, strict=True)
    ]
    return [max(1, min(10, r)) for r in rated]


def importance(text: str) -> int:
    return importances([text])[0]


def kinds(texts: Sequence[str]) -> list[str]:
    """What each memory is to pass on: EVENT, NEWS, PERSONAL or EVERYDAY."""
    return [j.label for j in judgments([firsthand(t)[0] for t in texts], "news", NEWS_K)]


def kind(text: str) -> str:
    return kinds([text])[0]
