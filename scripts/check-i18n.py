#!/usr/bin/env python3
"""The app's texts: every key the code names is in the table (zh-CN and en), every key in the
table is named somewhere. `t` falls back to the key itself, so a typo would otherwise show as
raw text in the page.

    scripts/check-i18n.py            exit 0 when both hold, 1 listing the keys that break them

Keys are the `"key" => ("en", "zh")` entries of app/src/i18n.rs and app/src/leaderboard/texts.rs.
A key is used when its literal appears anywhere in app/src outside the tables, or in a workbench
view model that hands the page keys (WORKBENCH below; keys travel through variables:
`t(lang, label)`); every literal of a key's shape (`word.word…`) must be one
(file names such as `track1.json` are not keys).
"""
import pathlib
import re
import sys

APP = pathlib.Path(__file__).resolve().parent.parent / "app" / "src"
TABLES = [APP / "i18n.rs", APP / "leaderboard" / "texts.rs"]
# View models whose labels are the page's keys (`Label::Key`), translated by the page.
WORKBENCH = [APP.parent.parent / "workbench" / "src" / "norming.rs"]
# `"key" => (en, zh),` (a match) or `("key", (en, zh)),` (a sorted table).
ENTRY = re.compile(r'^\s*(?:"([^"]+)" => \(|\("([^"]+)", \()', re.M)
KEY_LIKE = re.compile(r'"([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)"')
FILE_NAME = re.compile(r"\.(json|jsonl|csv|tsv|md|html|svg|png|xlsx|toml|txt|js|wasm|eval)$")


def main() -> int:
    defined: dict[str, str] = {}
    for table in TABLES:
        for key in (a or b for a, b in ENTRY.findall(table.read_text())):
            if key in defined:
                print(f"{table.name}: `{key}` is defined twice ({defined[key]})")
                return 1
            defined[key] = table.name
    # A sorted table is searched by binary search: its keys must stay in byte order.
    for table in TABLES:
        listed = [b for a, b in ENTRY.findall(table.read_text()) if b]
        for before, after in zip(listed, listed[1:]):
            if before.encode() >= after.encode():
                print(f"{table.name}: `{after}` must come before `{before}` (the table is searched by binary search)")
                return 1
    if len(defined) < 100:
        print(f"read only {len(defined)} keys from {', '.join(t.name for t in TABLES)}")
        return 1
    named: dict[str, str] = {}
    sources = sorted(APP.rglob("*.rs")) + WORKBENCH
    for path in sources:
        if path in TABLES:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if line.lstrip().startswith("//"):
                continue
            for key in KEY_LIKE.findall(line):
                if not FILE_NAME.search(key):
                    named.setdefault(key, f"{path.relative_to(APP.parent.parent)}:{number}")
    # The tables may name keys too (`t` delegating to the leaderboard's table, run states).
    table_text = "".join(t.read_text() for t in TABLES)
    code = "".join(p.read_text() for p in sources if p not in TABLES)
    missing = sorted(k for k in named if k not in defined)
    unused = sorted(
        k for k in defined if f'"{k}"' not in code and table_text.count(f'"{k}"') < 2
    )
    for key in missing:
        print(f"{named[key]}: `{key}` has no text (add it to i18n.rs or leaderboard/texts.rs)")
    for key in unused:
        print(f"{defined[key]}: `{key}` is never used (remove it)")
    if missing or unused:
        return 1
    print(f"i18n: {len(defined)} keys, each in zh-CN and en, each used")
    return 0


if __name__ == "__main__":
    sys.exit(main())
