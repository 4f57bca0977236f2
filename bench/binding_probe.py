#!/usr/bin/python3
"""Two probes of what the encoder can learn, written as labelled JSON Lines for `router train`.

binding: two orders, one delivered and one to come; the request names one of them by its item,
and the label turns on which: "cancel" about the order to come is cancel_order, about the one
that came refund_item; "fix the name" is change_order or replace_item. Both emails of a pair have
the same words; only the two states trade places. To get a pair right the model must carry each
order's state to its item and then match the request's item to that mention: two steps of
attention. test-unseen uses items no training email has.

match: "X and Y. which one? Y", labelled first or second: one step of attention, the request's
word matched to its earlier mention.

Usage: bench/binding_probe.py OUT_DIR   (writes binding-{train,valid,test,test-unseen}.jsonl and
match-{train,valid,test}.jsonl; the same files every run)
"""
import os
import random
import sys

from jsonl import save

ITEMS = ["chocolate cake", "vanilla cake", "modak hamper", "rasmalai box", "brownie tray",
         "cupcake box", "blueberry cheesecake", "laddoo box", "fruit tart", "cookie tin",
         "black forest cake", "kaju katli box", "red velvet cake", "truffle cake",
         "Diwali hamper", "barfi box", "pineapple cake", "butterscotch cake", "muffin box",
         "croissant basket", "mango cake", "walnut brownie cake", "gulab jamun tin",
         "coffee cake", "lemon tart", "pista barfi", "strawberry cake", "rum cake", "jalebi box",
         "carrot cake"]
SEEN, UNSEEN = ITEMS[:24], ITEMS[24:]
CAME = ["came yesterday", "was delivered this morning", "reached us on Monday",
        "arrived an hour ago", "came today"]
DUE = ["is due on Saturday", "is for tomorrow", "comes on Friday", "is booked for next week",
       "has not come yet"]
REQUESTS = {
    "cancel": ["Please cancel the {}.", "Cancel the {}, we do not need it any more.",
               "Kindly cancel the {}.", "We want to cancel the {}, please."],
    "fix": ["Please fix the name on the {}.", "The message on the {} is wrong, please redo it.",
            "Kindly correct the spelling on the {}."],
}
LABEL = {("cancel", "due"): "cancel_order", ("cancel", "came"): "refund_item",
         ("fix", "due"): "change_order", ("fix", "came"): "replace_item"}
WORDS = ["apple", "banana", "cherry", "mango", "grape", "lemon", "peach", "plum", "guava",
         "melon", "papaya", "orange", "lime", "kiwi", "fig", "date", "walnut", "almond", "cashew",
         "pista", "raisin", "coconut", "ginger", "saffron"]


def binding_pairs(rng, items, n, prefix):
    out = []
    for i in range(n):
        x, y = rng.sample(items, 2)
        came, due = rng.choice(CAME), rng.choice(DUE)
        n1, n2 = rng.randint(10000, 99999), rng.randint(10000, 99999)
        kind = rng.choice(sorted(REQUESTS))
        template = rng.choice(REQUESTS[kind])
        asked = rng.choice([x, y])
        request = template.format(asked)
        listed = rng.randint(0, 1)
        for side, (sx, sy) in enumerate([(came, due), (due, came)]):
            a, b = f"the {x} (CR-{n1}) {sx}", f"the {y} (CR-{n2}) {sy}"
            orders = f"We have two orders with you: {a}, and {b}." if listed == 0 else \
                f"Two orders: {a}; {b}."
            state = "came" if (sx if asked == x else sy) == came else "due"
            out.append({"id": f"{prefix}-{i}-{side}", "text": f"{orders} {request}",
                        "label": LABEL[(kind, state)], "pair": f"{prefix}-p{i}"})
    return out


def match_pairs(rng, n, prefix):
    out = []
    for i in range(n):
        a, b = rng.sample(WORDS, 2)
        for side, asked in enumerate([a, b]):
            out.append({"id": f"{prefix}-{i}-{side}", "text": f"{a} and {b}. which one? {asked}",
                        "label": "first" if side == 0 else "second", "pair": f"{prefix}-p{i}"})
    return out


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    out = sys.argv[1]
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        sys.exit(f"binding_probe: {out}: cannot make the folder ({e.strerror})")
    rng = random.Random(1)
    for name, items, n in [("train", SEEN, 3000), ("valid", SEEN, 300), ("test", SEEN, 300),
                           ("test-unseen", UNSEEN, 300)]:
        save(os.path.join(out, f"binding-{name}.jsonl"), binding_pairs(rng, items, n, name))
    for name, n in [("train", 3000), ("valid", 300), ("test", 300)]:
        save(os.path.join(out, f"match-{name}.jsonl"), match_pairs(rng, n, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
