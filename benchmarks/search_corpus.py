"""Seeded synthetic-but-realistic chat messages and queries for ``bench_search``.

Messages mix English chat sentences drawn from a Zipf-distributed vocabulary (a few hundred real
words on top, then ~40k pronounceable synthetic words), code snippets with ``snake_case``
identifiers and ``file.py`` names, tool/log output with paths and URLs, and Chinese, Japanese and
Korean sentences (some mixed with English). Smaller corpora are prefixes of larger ones, so the
sizes of one run share their data. Queries are derived from the same generator: single terms across
the frequency range, two-term ANDs, phrases lifted from real messages, prefixes, CJK words and
code-like words.
"""

from __future__ import annotations

import itertools
import pickle
import random
from dataclasses import dataclass
from pathlib import Path

SEED = 20260501
CORPUS_VERSION = 1

COMMON = """the to and a of i you it is in that for this on be with not have can do are
what we my your if but so just at was as me or like how from will an about there get all
one no would they out up he know think use need make want time some then when here now yes
file code error run version python server install config function data test build model
system message user set new work first also more should please try check see good way could
which because does help thanks problem output command line value change update really sure
list return string number key path script name docs issue fix call default support still
great example look something after before other them only into did same image thing api
docker branch commit merge release deploy token memory cache query index search result
session request response client network port host local remote package module class type
""".split()  # noqa: SIM905

SYLLABLES = [c + v for c in "bcdfghjklmnprstvwz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]

CHINESE = """这个 函数 返回 一个 列表 配置 文件 数据 错误 问题 服务器 安装 版本 模型 用户 消息
搜索 索引 结果 请求 响应 代码 测试 运行 构建 部署 内存 缓存 查询 会话 我们 可以 需要 如何 使用
已经 没有 因为 所以 但是 然后 现在 今天 明天 系统 网络 端口 命令 参数 输出 输入 字符串 数字 变量
""".split()  # noqa: SIM905
JAPANESE = """この 関数 は リスト を 返します 設定 ファイル データ エラー 問題 サーバー バージョン
モデル ユーザー メッセージ 検索 結果 テスト 実行 して ください ました です ます 確認 更新 メモリ
""".split()  # noqa: SIM905
KOREAN = """이 함수는 목록을 반환합니다 설정 파일 데이터 오류 문제 서버 설치 버전 모델 사용자
메시지 검색 결과 요청 응답 코드 테스트 실행 확인 업데이트 메모리 캐시 해주세요 했습니다 입니다
""".split()  # noqa: SIM905
ROLES = ["user", "assistant", "assistant", "tool", "user", "system"]
SOURCES = ["cli", "telegram", "discord", "slack", "cli", "cli", "whatsapp"]


@dataclass(frozen=True)
class Query:
    kind: str  # term | and | phrase | prefix | cjk | code
    words: tuple[str, ...]


def _vocabulary(rng: random.Random, size: int = 40_000) -> list[str]:
    vocab = list(dict.fromkeys(COMMON))
    seen = set(vocab)
    while len(vocab) < size:
        word = "".join(rng.choices(SYLLABLES, k=rng.choice((2, 2, 3, 3, 3, 4))))
        if rng.random() < 0.2:
            word += rng.choice(("s", "ed", "ing", "er", "ly", "ion"))
        if word not in seen:
            seen.add(word)
            vocab.append(word)
    return vocab


class Generator:
    def __init__(self, seed: int = SEED) -> None:
        self.rng = random.Random(seed)
        self.vocab = _vocabulary(self.rng)
        weights = [1.0 / (rank + 2.7) ** 1.07 for rank in range(len(self.vocab))]
        self.cum = list(itertools.accumulate(weights))
        self.buffer: list[str] = []

    def words(self, k: int) -> list[str]:
        if len(self.buffer) < k:
            self.buffer = self.rng.choices(self.vocab, cum_weights=self.cum, k=200_000 + k)
        out = self.buffer[-k:]
        del self.buffer[-k:]
        return out

    def ident(self) -> str:
        return "_".join(self.words(self.rng.choice((2, 2, 3))))

    def chat(self) -> str:
        rng = self.rng
        sentences = []
        for _ in range(rng.choice((1, 1, 2, 2, 3, 4))):
            ws = self.words(rng.randint(5, 18))
            if rng.random() < 0.15:
                ws.insert(rng.randrange(len(ws)), rng.choice((self.ident(), f"{ws[0]}.py")))
            if rng.random() < 0.1:
                ws.append(str(rng.randint(0, 5000)))
            sentences.append(" ".join(ws).capitalize() + rng.choice((".", ".", "?", "!")))
        return " ".join(sentences)

    def code(self) -> str:
        rng = self.rng
        fn, arg, other = self.ident(), self.words(1)[0], self.ident()
        lines = [f"def {fn}({arg}, {other}=None):"]
        for _ in range(rng.randint(1, 5)):
            a, b = self.words(2)
            lines.append(f"    {a} = {other}.{b}({arg})  # {' '.join(self.words(3))}")
        lines.append(f"    return {fn}_{arg}")
        if rng.random() < 0.4:
            lines.insert(0, f"import {self.words(1)[0]}\n$ pip install {'-'.join(self.words(2))}")
        return "\n".join(lines)

    def log(self) -> str:
        a, b, c, d = self.words(4)
        return (
            f"ERROR {a} failed: {' '.join(self.words(6))} at /usr/lib/{b}/{c}.py:"
            f"{self.rng.randint(1, 900)}"
            f" (see https://{d}.example.com/{a}/{b}?v={self.rng.randint(1, 99)}) exit code"
            f" {self.rng.randint(1, 255)}"
        )

    def cjk(self) -> str:
        rng = self.rng
        lang = rng.random()
        if lang < 0.5:
            text = "".join(rng.choices(CHINESE, k=rng.randint(4, 14)))
            if rng.random() < 0.4:
                text = f"{self.words(1)[0].capitalize()}的{text}\uff0c{' '.join(self.words(3))}。"
            return text
        if lang < 0.75:
            return "".join(rng.choices(JAPANESE, k=rng.randint(4, 12))) + "。"
        return " ".join(rng.choices(KOREAN, k=rng.randint(3, 9))) + "."

    def message(self) -> str:
        r = self.rng.random()
        if r < 0.70:
            return self.chat()
        if r < 0.82:
            return self.code()
        if r < 0.92:
            return self.log()
        return self.cjk()


Doc = tuple[int, str, str, str, float, str]


def generate(n: int, seed: int = SEED) -> list[Doc]:
    gen = Generator(seed)
    rng = gen.rng
    docs: list[Doc] = []
    ts = 1_700_000_000.0
    session = 0
    for rowid in range(1, n + 1):
        if rng.random() < 0.03:
            session += 1
        ts += rng.random() * 30
        docs.append(
            (
                rowid,
                f"session-{session:06d}",
                rng.choice(ROLES),
                rng.choice(SOURCES),
                round(ts, 3),
                gen.message(),
            )
        )
    return docs


def load(n: int, cache_dir: Path) -> list[Doc]:
    """The first ``n`` messages, from the cache if a large enough corpus is there."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    for path in sorted(cache_dir.glob(f"corpus-v{CORPUS_VERSION}-*.pkl")):
        size = int(path.stem.rsplit("-", 1)[1])
        if size >= n:
            with path.open("rb") as f:
                docs: list[Doc] = pickle.load(f)
            return docs[:n]
    docs = generate(n)
    path = cache_dir / f"corpus-v{CORPUS_VERSION}-{n}.pkl"
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as f:
        pickle.dump(docs, f, protocol=pickle.HIGHEST_PROTOCOL)
    tmp.rename(path)
    return docs


def make_queries(sample: list[Doc], seed: int = SEED + 1) -> list[Query]:
    """200 queries: 50 terms, 40 ANDs, 40 phrases, 35 prefixes, 20 CJK words, 15 code words."""
    rng = random.Random(seed)
    vocab = _vocabulary(random.Random(SEED))
    out: list[Query] = []
    for lo, hi, k in ((0, 100, 8), (100, 2000, 22), (2000, 20_000, 20)):
        out += [Query("term", (w,)) for w in rng.sample(vocab[lo:hi], k)]
    chats = [d[5] for d in sample if d[5][:1].isupper() and "_" not in d[5] and d[5].isascii()]
    while len([q for q in out if q.kind == "and"]) < 40:
        # Two words that do occur together somewhere: what a user remembers of a conversation.
        words = sorted({w.strip(".?!,").lower() for w in rng.choice(chats).split()})
        words = [w for w in words if w.isalpha() and len(w) > 3]
        if len(words) >= 2:
            out.append(Query("and", tuple(rng.sample(words, 2))))
    while len([q for q in out if q.kind == "phrase"]) < 40:
        words = [w.strip(".?!,").lower() for w in rng.choice(chats).split()]
        words = [w for w in words if w.isalpha()]
        if len(words) >= 3:
            i = rng.randrange(len(words) - 2)
            out.append(Query("phrase", tuple(words[i : i + rng.choice((2, 2, 3))])))
    for _ in range(30):
        w = rng.choice([w for w in vocab[30:5000] if len(w) >= 5])
        out.append(Query("prefix", (w[: rng.choice((3, 4, 4, 5))],)))
    out += [Query("prefix", (p,)) for p in ("a", "co", "se", "ma", "th")]
    for _ in range(20):
        out.append(Query("cjk", (rng.choice([*CHINESE, *JAPANESE[:12], *KOREAN[:10]]),)))
    idents = sorted(
        {w for d in sample for w in d[5].split() if ("_" in w or w.endswith(".py")) and w.isascii()}
    )
    idents = [w.strip("():,.=") for w in idents]
    idents = [w for w in idents if w.replace("_", "").replace(".", "").isalnum()]
    idents += [w for w in ("file.py", "config.py") if w not in idents]
    for w in rng.sample(sorted(set(idents)), min(15, len(set(idents)))):
        out.append(Query("code", (w,)))
    return out[:200]
