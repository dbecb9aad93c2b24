"""Write metrics-core/tests/data/json_repair_cases.jsonl: json_repair.loads on the texts of
CASES_IN (one {"text"} per line, e.g. the mismatches `diff_json_repair.py --cases` collected)
plus a few hand-picked shapes. usage: json_repair_cases.py CASES_IN OUT [LIMIT]"""

import json
import random
import sys

import json_repair

from diff_json_repair import dumps

EXTRA = [
    '{"total":6,"pred_score":3.5,"steps":[{"step_score":4,"err', '{"total":4,"steps":[{"step_score":0},{"ste',
    '{"total":6,"pred_score":3,"steps":', '{"total":6,"steps":[{', '{"total":6,"steps":["答非',
    '{"total":6,"pred_score":3.', '{"a":1e', '{"a":tr', '{"a":[{},', '{"a":[{}', '{"a":1}xyz',
    '{"a":1}{"b":2}', '{"total":5}{"total":6}', '{"a":[1,2,],"b":2}', '{"a":1,"b"}',
    '{"a":True,"b":None}', '{"a":"x"y","b":1}', '{"total"', '{"',
    '{"a":NaN,"b":1e999,"c":123456789012345678901234567890}', r'{"a":"\ud83c\udf89 \ud83c"} x',
    "{'a': 'it\\'s'}", '{"a": [1] [2]}', '{"a": 1 // c\n, "b": 2}', '{"a": (1, 2)}',
    '{"a": ```json{"b":1}```}', '{"a": „low“ quote"}', '{"total": 1, "a": "x"}, "b": 2',
]


def main():
    texts = [json.loads(line)["text"] for line in open(sys.argv[1], encoding="utf-8")]
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 250
    random.Random(0).shuffle(texts)
    chosen = sorted(dict.fromkeys(texts[:limit]), key=len) + EXTRA
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        for text in chosen:
            try:
                value = dumps(json_repair.loads(text))
            except Exception:  # noqa: BLE001 - raising is a result too
                value = None
            out.write(json.dumps({"text": text, "loads": value}, ensure_ascii=False) + "\n")
    print(f"{len(chosen)} cases")


if __name__ == "__main__":
    main()
