"""A deterministic mixed-language corpus for the token benchmarks (no downloads).

Documents of English prose, Chinese/Japanese text, emoji (ZWJ sequences, flags, skin tones), source
code, whitespace oddities and long runs without spaces (base64, hex), generated from small embedded
word lists and snippets with a seeded RNG, so every run measures exactly the same bytes.
"""

from __future__ import annotations

import base64
import random

_WORDS = """
the of and to in is was that for it with as his on be at by had are but from or have an they
which one you were all we her she there would their will when who him been has more if no out do
so can what up said about other into than its time only could new them man some these then two
first may any like now my over such our made after also did many before must through back years
where much your way well down should because each just those people how too little state good
very make world still own see men work long get here between both life being under never day
same another know while last might us great old year off come since against go came right used
take three states himself few house use during without again place american around however home
small found thought went say part once general high upon school every don't does got united left
number course war until always away something fact though water less public put think almost
hand enough far took head yet government system better set told nothing night end why called
didn't eyes find going look asked later knew point next program city business give group toward
young days let room president side social present given several order national possible rather
second face per among form important often things looked early white case john become large big
need four within felt children along saw best church ever least power development light thought
family interest want members mind country area others done turned although open god service
certain kind problem began different door thus help sense means whole matter perhaps itself york
it's times law human line above name example action company hands local show whether five
history gave today either act feet across taken past quite anything seen having death experience
body word half really field free car I'm we'll they've you're she'd O'Neil McDonald's naïve café
résumé coöperate Zürich São Paulo façade jalapeño Dvořák Øresund Łódź İstanbul straße ΑΒΓ αβγ
Москва привет
"""
ENGLISH = _WORDS.split()

CJK = (
    "的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可"
    "她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三"
    "已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女"
    "問題東京都日本語勉強電車駅新幹線食べ物美味しいありがとうございますこんにちはさようならカタカナ"
    "ひらがなテストコンピューターソフトウェアプログラム한국어안녕하세요감사합니다서울대한민국"
)
CJK_PUNCT = "，。、！？：；「」（）《》……"  # noqa: RUF001 (real CJK punctuation)

EMOJI = [
    "😀",
    "😂",
    "🥲",
    "👍",
    "👍🏽",
    "🙏🏿",
    "❤️",
    "🔥",
    "🚀",
    "🎉",
    "✅",
    "🤖",
    "🧠",
    "👀",
    "👨‍👩‍👧‍👦",
    "👩🏽‍💻",
    "🏳️‍🌈",
    "🧑‍🚀",
    "🇺🇸",
    "🇯🇵",
    "🇫🇷",
    "🇧🇷",
    "🇺🇦",
    "🏴‍☠️",
    "⚠️",
    "1️⃣",
]

CODE_SNIPPETS = [
    '''def fibonacci(n: int) -> int:\n    """Return the n-th Fibonacci number."""\n'''
    """    a, b = 0, 1\n"""
    """    for _ in range(n):\n        a, b = b, a + b\n    return a\n""",
    """fn main() {\n    let v: Vec<u32> = (0..10).map(|x| x * x).collect();\n"""
    """    println!("{:?}", v);\n}\n""",
    """{"id": 12345, "name": "widget", "tags": ["a", "b"], "price": 19.99, "ok": true}\n""",
    """<div class="container"><p>Hello, <b>world</b>!</p></div>\n""",
    """SELECT u.id, COUNT(*) AS n FROM users u JOIN orders o ON o.user_id = u.id\n"""
    """WHERE o.created_at >= '2024-01-01' GROUP BY u.id HAVING n > 3;\n""",
    """#include <stdio.h>\nint main(void) {\n\tprintf("%d\\n", 42);\n\treturn 0;\n}\n""",
    """    if (err != nil) {\r\n        return fmt.Errorf("open %s: %w", path, err)\r\n    }\r\n""",
    """const x = async () => { await fetch(`/api/v1/items?page=${page}&limit=50`); };\n""",
]

ODD_WHITESPACE = [
    "  \n\n   ",
    "\r\n\r\n",
    "\t\t",
    " \u00a0 ",
    "\u2028",
    "\u3000",
    "   ",
    " \n ",
    "\n\n\n\n",
]


def _english_sentence(rng: random.Random) -> str:
    words = [rng.choice(ENGLISH) for _ in range(rng.randint(4, 22))]
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), str(rng.randint(0, 10 ** rng.randint(1, 8))))
    if rng.random() < 0.1:
        i = rng.randrange(len(words))
        words[i] = words[i].upper() + rng.choice(["'S", "'LL", "'VE", "'d"])
    sentence = " ".join(words)
    end = rng.choice([".", ".", ".", "!", "?", ";", ":", "..."])
    return sentence[0].upper() + sentence[1:] + end


def _cjk_sentence(rng: random.Random) -> str:
    return "".join(rng.choice(CJK) for _ in range(rng.randint(5, 40))) + rng.choice(CJK_PUNCT)


def _emoji_line(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(2, 12)):
        parts.append(rng.choice(EMOJI) if rng.random() < 0.6 else rng.choice(ENGLISH))
    return " ".join(parts) if rng.random() < 0.5 else "".join(parts)


def _code_block(rng: random.Random) -> str:
    return "".join(rng.choice(CODE_SNIPPETS) for _ in range(rng.randint(1, 4)))


def _long_run(rng: random.Random) -> str:
    raw = rng.randbytes(rng.choice([48, 300, 3000, 30000]))
    kind = rng.random()
    if kind < 0.6:
        return base64.b64encode(raw).decode()
    if kind < 0.8:
        return raw.hex()
    return "https://example.com/" + base64.urlsafe_b64encode(raw[:200]).decode() + "?q=1"


def document(rng: random.Random, target: int) -> str:
    """One document of roughly ``target`` characters mixing every kind of text."""
    # Weights per piece, chosen so that by bytes the corpus is about 45% English, 20% code, 20%
    # CJK, 5% emoji lines, 10% long runs without spaces and a little odd whitespace.
    makers = [
        (_english_sentence, 45.0),
        (_cjk_sentence, 15.0),
        (_emoji_line, 12.0),
        (_code_block, 6.0),
        (lambda r: r.choice(ODD_WHITESPACE), 10.0),
        (_long_run, 0.09),
    ]
    funcs, weights = zip(*makers, strict=True)
    out: list[str] = []
    size = 0
    while size < target:
        piece = rng.choices(funcs, weights)[0](rng)
        sep = rng.choice([" ", " ", "\n", "\n\n", ""])
        out.append(piece + sep)
        size += len(piece) + len(sep)
    return "".join(out)


def corpus(total_bytes: int = 10_500_000, seed: int = 20240601) -> list[str]:
    """Documents totalling at least ``total_bytes`` of UTF-8."""
    rng = random.Random(seed)
    docs: list[str] = []
    size = 0
    while size < total_bytes:
        doc = document(rng, rng.randint(2_000, 40_000))
        docs.append(doc)
        size += len(doc.encode("utf-8"))
    return docs
