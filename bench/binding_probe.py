#!/usr/bin/python3
"""Probes of what the encoder can learn, written as labelled JSON Lines for `router train`.

binding: two orders, one delivered and one to come; the request names one of them by its item,
and the label turns on which: "cancel" about the order to come is cancel_order, about the one
that came refund_item; "fix the name" is change_order or replace_item. Both emails of a pair have
the same words; only the two states trade places. To get a pair right the model must carry each
order's state to its item and then match the request's item to that mention: two steps of
attention. test-unseen uses items no training email has.

match: "X and Y. which one? Y", labelled first or second: one step of attention, the request's
word matched to its earlier mention.

adjacent: binding with each state one word right before a one-word item ("the delivered plum
(CR-25455), and the pending fig (CR-74937). Please cancel the fig."), so that the state reaches
its item in one step to the neighbour. neighbour: the same emails labelled came or due, the
asked item's state alone, without the request's verb.

nonumber and shortnumber: binding with each order number left out ("the brownie tray came
yesterday") or written "(CR)", three tokens instead of six. mixed-train: binding's and adjacent's
training mail together (ids and pair ids prefixed far- and near-), validated on binding's;
double-train: binding's training mail and as many more pairs of it, the same items (mixed-train's
control: as much mail, all of it far).

Usage: bench/binding_probe.py OUT_DIR   (writes {binding,nonumber,shortnumber,adjacent,neighbour}-
{train,valid,test,test-unseen}.jsonl, match-{train,valid,test}.jsonl, mixed-train.jsonl and
double-train.jsonl; the same files every run)
"""
import argparse
import os
import random
import re
import sys

from jsonl import save

ITEMS = ["chocolate cake", "vanilla cake", "modak hamper", "rasmalai box", "brownie tray",
         "cupcake box", "blueberry cheesecake", "laddoo box", "fruit tart", "cookie tin",
         "black forest cake", "kaju katli box", "red velvet cake", "truffle cake",
         "Diwali hamper", "barfi box", "pineapple cake", "butterscotch cake", "muffin box",
         "croissant basket", "mango cake", "walnut brownie cake", "gulab jamun tin",
         "coffee cake", "lemon tart", "pista barfi", "strawberry cake", "rum cake", "jalebi box",
         "carrot cake"]
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
CAME_WORD = ["delivered", "received", "arrived", "finished", "collected"]
DUE_WORD = ["upcoming", "pending", "booked", "future", "awaited"]
WORDS = ["apple", "banana", "cherry", "mango", "grape", "lemon", "peach", "plum", "guava",
         "melon", "papaya", "orange", "lime", "kiwi", "fig", "date", "walnut", "almond", "cashew",
         "pista", "raisin", "coconut", "ginger", "saffron"]


# How an order is named in the email: its item, number and state (binding), or the state as one
# word right before a one-word item (adjacent).
FAR = "the {item} (CR-{number}) {state}"
NEAR = "the {state} {item} (CR-{number})"


def binding_pairs(rng, items, n, prefix, came_states=CAME, due_states=DUE, order=FAR):
    out = []
    for i in range(n):
        x, y = rng.sample(items, 2)
        came, due = rng.choice(came_states), rng.choice(due_states)
        n1, n2 = rng.randint(10000, 99999), rng.randint(10000, 99999)
        kind = rng.choice(sorted(REQUESTS))
        template = rng.choice(REQUESTS[kind])
        asked = rng.choice([x, y])
        request = template.format(asked)
        listed = rng.randint(0, 1)
        for side, (sx, sy) in enumerate([(came, due), (due, came)]):
            a = order.format(item=x, number=n1, state=sx)
            b = order.format(item=y, number=n2, state=sy)
            orders = f"We have two orders with you: {a}, and {b}." if listed == 0 else \
                f"Two orders: {a}; {b}."
            state = "came" if (sx if asked == x else sy) == came else "due"
            out.append({"id": f"{prefix}-{i}-{side}", "text": f"{orders} {request}",
                        "label": LABEL[(kind, state)], "pair": f"{prefix}-p{i}"})
    return out


def renumbered(records, number):
    """The records with every " (CR-12345)" replaced by `number`, on both sides of each pair."""
    return [dict(r, text=re.sub(r" \(CR-\d+\)", number, r["text"])) for r in records]


def prefixed(records, prefix):
    """The records with ids and pair ids prefixed, so that two files' pairs stay apart."""
    return [dict(r, id=prefix + r["id"], pair=prefix + r["pair"]) for r in records]


def state_only(records):
    came = {label for (_, state), label in LABEL.items() if state == "came"}
    return [dict(r, label="came" if r["label"] in came else "due") for r in records]


def match_pairs(rng, n, prefix):
    out = []
    for i in range(n):
        a, b = rng.sample(WORDS, 2)
        for side, asked in enumerate([a, b]):
            out.append({"id": f"{prefix}-{i}-{side}", "text": f"{a} and {b}. which one? {asked}",
                        "label": "first" if side == 0 else "second", "pair": f"{prefix}-p{i}"})
    return out


def splits(items):
    """(name, items, pairs) of each file: four fifths of the items for training and the tests,
    the rest for test-unseen."""
    seen, unseen = items[:len(items) * 4 // 5], items[len(items) * 4 // 5:]
    return [("train", seen, 3000), ("valid", seen, 300), ("test", seen, 300),
            ("test-unseen", unseen, 300)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out", metavar="OUT_DIR", help="the folder to write the files into")
    out = ap.parse_args().out
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        sys.exit(f"binding_probe: {out}: cannot make the folder ({e.strerror})")
    rng = random.Random(1)
    binding = {}
    for name, items, n in splits(ITEMS):
        binding[name] = binding_pairs(rng, items, n, name)
        save(os.path.join(out, f"binding-{name}.jsonl"), binding[name])
        save(os.path.join(out, f"nonumber-{name}.jsonl"), renumbered(binding[name], ""))
        save(os.path.join(out, f"shortnumber-{name}.jsonl"), renumbered(binding[name], " (CR)"))
    for name, n in [("train", 3000), ("valid", 300), ("test", 300)]:
        save(os.path.join(out, f"match-{name}.jsonl"), match_pairs(rng, n, name))
    rng = random.Random(1)  # its own stream: the files above stay as they were
    for name, items, n in splits(WORDS):
        records = binding_pairs(rng, items, n, name, CAME_WORD, DUE_WORD, NEAR)
        save(os.path.join(out, f"adjacent-{name}.jsonl"), records)
        save(os.path.join(out, f"neighbour-{name}.jsonl"), state_only(records))
        if name == "train":
            mixed = prefixed(binding[name], "far-") + prefixed(records, "near-")
            save(os.path.join(out, "mixed-train.jsonl"), mixed)
    rng = random.Random(2)  # its own stream again
    _, seen, n = splits(ITEMS)[0]
    more = binding_pairs(rng, seen, n, "more")
    save(os.path.join(out, "double-train.jsonl"), binding["train"] + more)
    return 0


if __name__ == "__main__":
    sys.exit(main())
