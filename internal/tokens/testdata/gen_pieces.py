"""Writes pieces.json: random texts of every character class the split
patterns tell apart, and the pieces tiktoken's o200k_base and cl100k_base
patterns split them into, as a backtracking engine reads them (the `regex`
module, the semantics of tiktoken's fancy-regex). TestSplitMatchesPatterns
checks this package's hand-written pre-tokenizers against it.

    python3 gen_pieces.py > pieces.json
"""
import json
import random

import regex

O200K = (r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
         r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
         r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
CL100K = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
          r"|\s*[\r\n]+|\s+(?!\S)|\s+")

RUNES = ("aZ09 _-'\"/\\\r\n\t.,;:!?()[]{}<>=+*&^%$#@~`|"
         "éÉßǅﬁſ日本語の中文한국어Привет мир" "हिन्दी" "\u0301\u0308" "٣٤٥१२३Ⅻ½"
         "\u00a0\u2003\u2028\u2029\u3000\u0085" "🦊👍🏽🇫🇷" "’ʼ" "\x00\x1f\x7f")
WORDS = ["the", " The", "don't", "I'LL", "we've", " it's", "you'RE", "HTTPServer", "naïve", " 123456",
         "\n\n", "  \n ", "    ", "x=1;", "//", "https://example.com/a/b", "\r\n", " ---", "ſ'ſ", "'S",
         " \n \r\n", "\t\n\t", "A\u0301B"]


def text(rng, n):
    out = []
    while sum(len(s) for s in out) < n:
        if rng.randrange(3) == 0:
            out.append(rng.choice(WORDS))
        else:
            out.append("".join(rng.choice(RUNES) for _ in range(1 + rng.randrange(6))))
    return "".join(out)


def main():
    rng = random.Random(30)
    cases = []
    for _ in range(500):
        s = text(rng, 1 + rng.randrange(200))
        cases.append({"text": s, "o200k": regex.findall(O200K, s), "cl100k": regex.findall(CL100K, s)})
    json.dump(cases, __import__("sys").stdout, ensure_ascii=False, indent=0)


main()
