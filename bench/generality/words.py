"""The bench's word lists: names, trades, places and their rooms, made up here (none a
name of the shipped towns or bases). Kept in the bench, never in application code."""

from __future__ import annotations

from typing import NamedTuple

FIRST_NAMES = (
    "Adela", "Ambrose", "Anouk", "Barnaby", "Bettina", "Caspar", "Celia", "Cosmo", "Delphine",
    "Dorian", "Elodie", "Evander", "Fenella", "Florian", "Gwenda", "Hamish", "Henrike",
    "Idris", "Imogen", "Jasper", "Juno", "Kester", "Lavinia", "Lorcan", "Magnus", "Marisol",
    "Nerys", "Oswin", "Ottilie", "Perpetua", "Piran", "Rhoswen", "Rufus", "Saffron", "Severin",
    "Tamsin", "Thaddeus", "Ulla", "Valentin", "Wilhelmina", "Yannick", "Zinnia", "Bartholomew",
    "Clemency", "Emrys", "Leocadia", "Odhran", "Philippa", "Radomir", "Solveig",
)  # fmt: skip
LAST_NAMES = (
    "Ashgrove", "Blackwood", "Brennan", "Carrow", "Dunstable", "Elphick", "Fairweather",
    "Gorringe", "Hartigan", "Inchbald", "Jessop", "Kilbride", "Larkworthy", "Merriman",
    "Nettleship", "Oakes", "Pennycook", "Quarrie", "Rowntree", "Scarrow", "Thistlewood",
    "Underhay", "Vosper", "Whitlock", "Yelland", "Zuckerman", "Abernethy", "Bracegirdle",
    "Cheverton", "Drinkwater",
)  # fmt: skip
# Syllables of the made-up proper names of towns, storms, cups, bridges and babies.
ONSETS = (
    "Bram", "Cor", "Dun", "El", "Fen", "Gar", "Hol", "Ist", "Jor", "Kel", "Lun", "Mor",
    "Nes", "Or", "Pel", "Quen", "Ros", "Sil", "Tor", "Ul", "Ven", "Wyn", "Yar", "Zel",
    "Brisk", "Cal", "Dray", "Ferr", "Grim", "Hask",
)  # fmt: skip
CODAS = (
    "by", "dale", "wick", "mere", "holt", "stow", "ley", "ton", "ford", "ric", "ina",
    "ara", "en", "ow", "ath", "ell", "is", "ock",
)  # fmt: skip
TRAITS = (
    "curious", "patient", "cheerful", "reserved", "diligent", "witty", "kind", "practical",
    "restless", "thoughtful", "generous", "stubborn", "shy", "talkative", "meticulous",
    "easygoing", "proud", "gentle", "blunt", "dreamy",
)  # fmt: skip


Rooms = tuple[tuple[str, tuple[str, ...]], ...]  # (arena, its objects), ...


class Trade(NamedTuple):
    """A kind of workplace: the sector's kind, the worker's occupation, its rooms (arena:
    objects) and whether it may keep night hours."""

    kind: str
    worker: str
    arenas: tuple[tuple[str, tuple[str, ...]], ...]
    nights: bool = False


TRADES = (
    Trade(
        "bakery",
        "baker",
        (("bakehouse", ("oven", "kneading table")), ("shop floor", ("counter",))),
        True,
    ),
    Trade("boatyard", "boatwright", (("slipway", ("hull frame",)), ("tool shed", ("workbench",)))),
    Trade(
        "school", "teacher", (("classroom", ("blackboard", "desks")), ("staff room", ("kettle",)))
    ),
    Trade(
        "library", "librarian", (("reading room", ("shelves", "lamp")), ("archive", ("map chest",)))
    ),
    Trade("clinic", "nurse", (("ward", ("cot",)), ("surgery", ("examination table",))), True),
    Trade("forge", "blacksmith", (("smithy", ("anvil", "bellows")),)),
    Trade("pottery", "potter", (("throwing room", ("wheel",)), ("kiln yard", ("kiln",)))),
    Trade("fish market", "fishmonger", (("market hall", ("ice trays", "scales")),)),
    Trade(
        "post office",
        "postal clerk",
        (("sorting room", ("pigeonholes",)), ("front desk", ("stamp drawer",))),
    ),
    Trade("inn", "innkeeper", (("taproom", ("bar counter",)), ("kitchen", ("stove",))), True),
    Trade("print shop", "printer", (("press room", ("printing press",)),)),
    Trade("bookshop", "bookseller", (("shop", ("book table", "till")),)),
    Trade("sawmill", "sawyer", (("mill floor", ("bandsaw",)), ("timber yard", ("log pile",)))),
    Trade("pharmacy", "pharmacist", (("dispensary", ("medicine cabinet",)),), True),
    Trade("bicycle workshop", "bicycle mechanic", (("workshop", ("repair stand",)),)),
    Trade("greenhouse", "gardener", (("glasshouse", ("seed trays", "watering can")),)),
    Trade(
        "radio station",
        "radio presenter",
        (("studio", ("microphone",)), ("control room", ("mixing desk",))),
        True,
    ),
    Trade("barbershop", "barber", (("salon", ("barber chair", "mirror")),)),
    Trade("tailor's shop", "tailor", (("cutting room", ("sewing machine",)),)),
    Trade("museum", "curator", (("gallery", ("display case",)), ("store room", ("crates",)))),
    Trade("observatory", "astronomer", (("dome", ("telescope",)),), True),
    Trade("brewery", "brewer", (("brewhouse", ("mash tun",)), ("cellar", ("casks",)))),
    Trade("ferry office", "ferry clerk", (("ticket hall", ("ticket window",)),), True),
    Trade(
        "fire station",
        "firefighter",
        (("engine bay", ("fire engine",)), ("mess room", ("long table",))),
        True,
    ),
    Trade(
        "dairy", "dairy farmer", (("milking parlour", ("churns",)), ("cold room", ("cheese rack",)))
    ),
    Trade("laundry", "laundry worker", (("wash room", ("mangle", "tubs")),), True),
)

# Places residents only eat or shop at (nobody of the world works there).
EATERIES: tuple[tuple[str, Rooms], ...] = (
    ("cafe", (("dining room", ("tables",)), ("counter", ("coffee machine",)))),
    ("diner", (("booths", ("booth table",)), ("grill", ("griddle",)))),
    ("noodle bar", (("dining room", ("long bench",)),)),
    ("tea room", (("parlour", ("tea tables",)),)),
)  # fmt: skip
SHOPS: tuple[tuple[str, Rooms], ...] = (
    ("grocery", (("aisles", ("shelves",)), ("checkout", ("till",)))),
    ("hardware store", (("shop floor", ("nail bins",)),)),
    ("market stall", (("stall", ("crates",)),)),
)  # fmt: skip
PUBLIC: tuple[tuple[str, Rooms], ...] = (
    ("green", (("lawn", ("bench", "old oak")),)),
    ("square", (("plaza", ("fountain",)),)),
    ("harbour front", (("quay", ("bollard",)),)),
)  # fmt: skip
HOMES = ("house", "cottage", "flat", "lodge", "terrace")
HOME_ROOMS: tuple[Rooms, ...] = (
    (("bedroom", ("bed",)), ("kitchen", ("stove", "table"))),
    (("main room", ("bed", "armchair")),),
    (("loft", ("bed",)), ("parlour", ("sofa",))),
)  # fmt: skip
RELATIONS = (
    "neighbour", "cousin", "old school friend", "sister-in-law", "fishing partner",
    "former colleague", "chess rival", "landlord", "godparent", "walking companion",
)  # fmt: skip
PASTIMES = (
    "learning the accordion", "restoring an old rowing boat", "writing a family history",
    "training for a long swim", "knitting a quilt for a niece", "keeping bees",
    "saving up for a trip north", "teaching a dog new tricks", "repainting the kitchen",
    "reading every book by a favourite poet",
)  # fmt: skip
