"""Differential fuzzing of condorx's ClassAd engine against HTCondor's own (``classad2``).

    python tests/classad/differential.py [--cases 20000] [--seed 1] [--show 5]

Random expressions (every operator and precedence mix, literals of every type, attribute
references through MY/TARGET/nested scopes, subscripts, ``?:``, comments, malformed texts),
random ads (new and old syntax) and random match pairs go to both engines; everything
observable is compared: whether a text is accepted, the evaluated value (type and value),
the unparsed text, matches/symmetricMatch, and parseAds(old).

Each discrepancy is shrunk (subtrees replaced by their children or by simple literals) and
printed with both answers. ``tests/classad/test_differential.py`` runs a bounded number of
cases under pytest.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import random
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# ------------------------------------------------------------------------------------------
# the two engines
# ------------------------------------------------------------------------------------------


def pin_environment() -> None:
    os.environ["TZ"] = "UTC"
    import time

    time.tzset()
    os.environ["CONDOR_CONFIG"] = "ONLY_ENV"
    for k in list(os.environ):
        if k.lower().startswith("_condor_"):
            del os.environ[k]


def load_engines() -> tuple[Any, Any]:
    pin_environment()
    import classad2

    # HTCondor's one-time ClassAd set-up (its own functions, its default configuration).
    classad2.ExprTree("[ a = 1 ]").eval()
    from condorx import classad as cx

    return classad2, cx


# ------------------------------------------------------------------------------------------
# canonical forms of results
# ------------------------------------------------------------------------------------------

_WORD = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _tokens(s: str) -> list[str]:
    out: list[str] = []
    i, n, space = 0, len(s), False
    while i < n:
        c = s[i]
        if c.isspace():
            space, i = True, i + 1
            continue
        if c in "\"'":
            j = i + 1
            while j < n and s[j] != c:
                j += 2 if s[j] == "\\" else 1
            tok, i = s[i : j + 1], j + 1
        else:
            tok, i = c, i + 1
        if space and out and out[-1][-1] in _WORD and tok[0] in _WORD:
            out.append(" ")
        space = False
        out.append(tok)
    return out


_PAIR = {"(": ")", "[": "]", "{": "}"}


def _render_tokens(toks: list[str], a: int, b: int) -> str:
    """Tokens a..b as text, the attributes of every [ ... ] put in name order."""
    buf: list[str] = []
    i = a
    while i < b:
        t = toks[i]
        if t not in _PAIR:
            buf.append(t)
            i += 1
            continue
        depth, j = 0, None
        for k in range(i, b):
            if toks[k] in _PAIR:
                depth += 1
            elif toks[k] in (")", "]", "}"):
                depth -= 1
                if depth == 0:
                    j = k
                    break
        if j is None:
            buf.append(t)
            i += 1
            continue
        if t == "[":
            items, depth, start = [], 0, i + 1
            for k in range(i + 1, j + 1):
                if k < j and toks[k] in _PAIR:
                    depth += 1
                elif k < j and toks[k] in (")", "]", "}"):
                    depth -= 1
                elif k == j or (toks[k] == ";" and depth == 0):
                    items.append(_render_tokens(toks, start, k))
                    start = k + 1
            buf.append("[" + ";".join(sorted(x for x in items if x)) + "]")
        else:
            buf.append(t + _render_tokens(toks, i + 1, j) + _PAIR[t])
        i = j + 1
    return "".join(buf)


_REAL = re.compile(r"(?<![\w.])(\d\.\d+E[+-]\d+)")
_SELECTED_QUOTED = re.compile(r"\.'((?:[^'\\]|\\.)*)'")
_NUMBER_SELECTED = re.compile(r"(?<![\w)\]])\((-?[0-9][0-9.]*(?:E[+-][0-9]+)?)\)\.")


def _real15(m: re.Match) -> str:
    r = float(m.group(1))
    return m.group(1) if math.isinf(r) else f"{r:.15E}"


def norm_text(s: str) -> str:
    """Whitespace outside literals dropped (except between two word characters), and the
    attributes of every ad literal in name order: classad2 keeps them in hash order.

    Three deliberate differences of condorx's unparser are folded away too: it writes a
    real with one digit more where HTCondor's `%.15E` would not read back as the same
    double, it quotes a selected name that needs it (`x.'A b'`, where HTCondor writes
    `x.A b`), and it puts a number before `.` in parentheses (`(0).a`, where HTCondor
    writes `0.a`): HTCondor's forms do not parse back."""
    s = _NUMBER_SELECTED.sub(r"\1.", s)
    s = _REAL.sub(_real15, s)
    s = _SELECTED_QUOTED.sub(lambda m: "." + m.group(1).replace("\\'", "'"), s)
    toks = _tokens(s)
    return _render_tokens(toks, 0, len(toks))


def canon(mod: Any, v: Any) -> Any:
    """A hashable, engine-independent form of a Python value from either engine."""
    name = type(v).__name__
    if name == "Value" or (hasattr(mod, "Value") and isinstance(v, mod.Value)):
        return ("special", v.name)
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, int):
        return ("int", v)
    if isinstance(v, float):
        return ("real", "nan" if math.isnan(v) else repr(v))
    if isinstance(v, str):
        return ("string", v)
    if isinstance(v, datetime.datetime):
        off = v.utcoffset()
        return ("abstime", v.timestamp(), off.total_seconds() if off else None)
    if isinstance(v, datetime.timedelta):
        return ("reltime", v.total_seconds())
    if isinstance(v, (list, tuple)):
        return ("list", tuple(canon(mod, x) for x in v))
    if name == "ClassAd":
        return ("ad", tuple(sorted((str(k), norm_text(str(v.lookup(k)))) for k in v.keys())))
    if name == "ExprTree":
        return ("expr", norm_text(str(v)))
    return ("other", name, repr(v))


def attempt(f: Callable[[], Any]) -> tuple[bool, Any]:
    try:
        return True, f()
    except Exception as ex:  # noqa: BLE001 - any refusal is an observation
        return False, type(ex).__name__


# ------------------------------------------------------------------------------------------
# expression trees: generated, rendered, shrunk
# ------------------------------------------------------------------------------------------

# A node is a list: [kind, ...]. Expression children are nodes; everything else is text.
Node = list

BINARY = [
    "*", "/", "%", "+", "-", "<<", ">>", ">>>", "<", "<=", ">", ">=", "==", "!=",
    "=?=", "=!=", "is", "isnt", "&", "^", "|", "&&", "||",
]  # fmt: skip
UNARY = ["-", "+", "!", "~"]
# Not "ad": classad2's eval(scope, target) resolves a bare `ad` to the scope ad itself (an
# artifact of how its bindings set up the match), which no ClassAd semantics explains.
NAMES = ["a", "b", "c", "x", "A", "Memory", "Name", "Requirements", "Rank", "list", "Ad2"]
SCOPES = ["MY", "TARGET", "my", "target", "parent", "PARENT"]
FUNCS = {
    "strcat": (0, 3), "size": (1, 1), "int": (1, 1), "real": (1, 1), "string": (1, 1),
    "bool": (1, 1), "isUndefined": (1, 1), "isError": (1, 1), "isString": (1, 1),
    "isInteger": (1, 1), "isReal": (1, 1), "isList": (1, 1), "isClassAd": (1, 1),
    "isBoolean": (1, 1), "ifThenElse": (3, 3), "member": (2, 2), "identicalMember": (2, 2),
    "substr": (2, 3), "floor": (1, 1), "ceiling": (1, 1), "round": (1, 1), "toUpper": (1, 1),
    "toLower": (1, 1), "strcmp": (2, 2), "stricmp": (2, 2), "sum": (1, 1), "avg": (1, 1),
    "min": (1, 1), "max": (1, 1), "pow": (2, 2), "quantize": (2, 2), "join": (1, 3),
    "split": (1, 2), "stringListMember": (2, 3), "stringListSize": (1, 2),
    "regexp": (2, 3), "unparse": (1, 1), "eval": (1, 1), "anycompare": (3, 3),
    "allcompare": (3, 3), "debug": (1, 1), "log": (1, 2), "splitUserName": (1, 1),
    "relTime": (1, 1), "absTime": (1, 1), "versioncmp": (2, 2), "sign": (1, 1),
    "abs": (1, 1), "evalInEachContext": (2, 2), "countMatches": (2, 2),
}  # fmt: skip


def r_int(rng: random.Random) -> str:
    return rng.choice(
        [
            str(rng.randint(0, 10)),
            str(rng.randint(0, 1000)),
            "9223372036854775807",
            "9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
            "2147483647",
            "4294967296",
            "0x1F",
            "0X7fffffffffffffff",
            "0xffffffffffffffff",
            "010",
            "09",
            "00",
            "0b101",
            "1_000",
            str(rng.randint(-(2**63), 2**63 - 1)),
        ]
    )


def r_real(rng: random.Random) -> str:
    return rng.choice(
        [
            "1.5",
            "0.0",
            ".5",
            "5.",
            "1e3",
            "1E-3",
            "1e308",
            "1e309",
            "2.5e-320",
            "1e-400",
            "1.7976931348623157e308",
            "3.",
            "0.1",
            "123456789.123456789",
            "1e",
            "1e+",
            "1.5e+2",
            "007.5",
            'real("INF")',
            'real("-INF")',
            'real("NaN")',
            "-0.0",
            repr(rng.uniform(-1e6, 1e6)),
            repr(rng.uniform(-1, 1) * 10.0 ** rng.randint(-30, 30)),
        ]
    )


STRING_BODIES = [
    "",
    "abc",
    "ABC",
    "a b",
    "x86_64",
    "LINUX",
    "a,b,c",
    "a, b ,c",
    "\\n",
    "\\t",
    '\\"',
    "\\\\",
    "\\'",
    "\\101",
    "\\0",
    "\\x41",
    "\\u00e9",
    "\\q",
    "\\",
    "é",
    "日本",
    "ﬁ",
    "ß",
    "a\\nb",
    "\\400",
    "\\7",
    "\\12a",
    "/* not a comment */",
    "// nor this",
    "$(x)",
    "[a=1]",
    "1",
    "1.5",
    "true",
    "undefined",
    "   ",
    "\\b\\f\\r",
]


def r_string(rng: random.Random) -> str:
    body = "".join(rng.choice(STRING_BODIES) for _ in range(rng.randint(1, 2)))
    if rng.random() < 0.05:
        return "'" + body.replace("'", "") + "'"
    return '"' + body + '"'


def r_ident(rng: random.Random) -> str:
    if rng.random() < 0.1:
        return rng.choice(["'quoted name'", "'a'", "_x", "x1", "'A b'", "ÄÖ"])
    name = rng.choice(NAMES)
    if rng.random() < 0.2:
        name = name.upper() if rng.random() < 0.5 else name.lower()
    return name


def r_keyword(rng: random.Random) -> str:
    word = rng.choice(["true", "false", "undefined", "error"])
    return rng.choice([word, word.upper(), word.capitalize()])


def gen_expr(rng: random.Random, depth: int) -> Node:
    leaf = depth <= 0 or rng.random() < 0.25
    if leaf:
        k = rng.random()
        if k < 0.22:
            return ["lit", r_int(rng)]
        if k < 0.35:
            return ["lit", r_real(rng)]
        if k < 0.5:
            return ["lit", r_string(rng)]
        if k < 0.6:
            return ["lit", r_keyword(rng)]
        if k < 0.85:
            return ["ref", r_ident(rng)]
        if k < 0.95:
            return ["ref", rng.choice(SCOPES) + "." + r_ident(rng)]
        return ["ref", "." + r_ident(rng)]
    k = rng.random()
    d = depth - 1
    if k < 0.33:
        return ["bin", rng.choice(BINARY), gen_expr(rng, d), gen_expr(rng, d)]
    if k < 0.42:
        return ["un", rng.choice(UNARY), gen_expr(rng, d)]
    if k < 0.48:
        return ["cond", gen_expr(rng, d), gen_expr(rng, d), gen_expr(rng, d)]
    if k < 0.51:
        return ["elvis", gen_expr(rng, d), gen_expr(rng, d)]
    if k < 0.57:
        return ["paren", gen_expr(rng, d)]
    if k < 0.64:
        return ["list"] + [gen_expr(rng, d) for _ in range(rng.randint(0, 3))]
    if k < 0.71:
        return gen_ad(rng, d)
    if k < 0.77:
        return ["sel", gen_expr(rng, d), r_ident(rng)]
    if k < 0.83:
        return ["sub", gen_expr(rng, d), gen_expr(rng, d)]
    if k < 0.93:
        fname = rng.choice(list(FUNCS))
        lo, hi = FUNCS[fname]
        n = rng.randint(lo, hi) if rng.random() < 0.9 else rng.randint(0, 4)
        if rng.random() < 0.2:
            fname = fname.upper() if rng.random() < 0.5 else fname.lower()
        return ["call", fname] + [gen_expr(rng, d) for _ in range(n)]
    return ["ws", rng.choice(WS), gen_expr(rng, d), rng.choice(WS)]


WS = ["", " ", "  ", "\n", "\t", "/* c */", "/**/", " /* a * b */ ", "// c\n", "\r\n", "/*/ */"]


def gen_ad(rng: random.Random, depth: int) -> Node:
    n = rng.randint(0, 4)
    names = [r_ident(rng) for _ in range(n)]
    return ["ad"] + [["attr", nm, gen_expr(rng, depth)] for nm in names]


def render(node: Node) -> str:
    kind = node[0]
    if kind in ("lit", "ref"):
        return node[1]
    if kind == "bin":
        return f"{render(node[2])} {node[1]} {render(node[3])}"
    if kind == "un":
        return f"{node[1]}{render(node[2])}"
    if kind == "cond":
        return f"{render(node[1])} ? {render(node[2])} : {render(node[3])}"
    if kind == "elvis":
        return f"{render(node[1])} ?: {render(node[2])}"
    if kind == "paren":
        return f"({render(node[1])})"
    if kind == "list":
        return "{" + ", ".join(render(x) for x in node[1:]) + "}"
    if kind == "ad":
        return "[" + "; ".join(f"{a[1]} = {render(a[2])}" for a in node[1:]) + "]"
    if kind == "sel":
        return f"{render(node[1])}.{node[2]}"
    if kind == "sub":
        return f"{render(node[1])}[{render(node[2])}]"
    if kind == "call":
        return f"{node[1]}(" + ", ".join(render(x) for x in node[2:]) + ")"
    if kind == "ws":
        return f"{node[1]}{render(node[2])}{node[3]}"
    if kind == "mut":
        return node[1]
    raise ValueError(kind)


def children(node: Node) -> list[tuple[list, int]]:
    """(container, index) of every expression child of a node."""
    kind = node[0]
    out: list[tuple[list, int]] = []
    if kind == "ad":
        for a in node[1:]:
            out.append((a, 2))
        return out
    for i, x in enumerate(node):
        if i and isinstance(x, list):
            out.append((node, i))
    return out


def shrink_candidates(node: Node) -> list[Node]:
    """Smaller variants of a tree: one subtree replaced by one of its children or a literal."""
    import copy

    out: list[Node] = []
    # the root replaced by one of its children
    for cont, i in children(node):
        out.append(cont[i])
    if node[0] in ("list", "call", "ad") and len(node) > 2:
        for i in range(len(node) - 1, 1 if node[0] == "call" else 0, -1):
            c = copy.deepcopy(node)
            del c[i]
            out.append(c)
    for cont, i in children(node):
        sub = cont[i]
        for smaller in shrink_candidates(sub) + [["lit", "1"], ["ref", "x"]]:
            if smaller == sub:
                continue
            saved = cont[i]
            cont[i] = smaller
            out.append(copy.deepcopy(node))
            cont[i] = saved
    return out


def size(node: Node) -> int:
    return len(render(node))


def mutate_text(rng: random.Random, text: str) -> str:
    """A malformed (or merely odd) variant of a text: a character deleted, doubled or added."""
    if not text:
        return rng.choice(["]", "[", ";", "(", "?"])
    i = rng.randrange(len(text))
    k = rng.random()
    if k < 0.4:
        return text[:i] + text[i + 1 :]
    if k < 0.6:
        return text[:i] + text[i] + text[i:]
    extra = rng.choice(list("[](){};,=?:.\"'\\/*+-!<>|&^~%@#$`") + [" ", "\n", "is", "\x00"])
    return text[:i] + extra + text[i:]


# ------------------------------------------------------------------------------------------
# the cases and their comparison
# ------------------------------------------------------------------------------------------


@dataclass
class Case:
    kind: str  # "expr", "ad", "match", "old"
    expr: Node | None = None
    my: Node | None = None
    target: Node | None = None
    text: str | None = None
    extra: dict = field(default_factory=dict)

    def describe(self) -> str:
        if self.kind == "expr":
            s = f"expr {render(self.expr)!r}" if self.expr else f"expr {self.text!r}"
            if self.my is not None:
                s += f" my={render(self.my)!r}"
            if self.target is not None:
                s += f" target={render(self.target)!r}"
            return s
        if self.kind == "match":
            return f"match left={render(self.my)!r} right={render(self.target)!r}"
        if self.kind == "ad":
            return f"ad {self.text if self.text is not None else render(self.expr)!r}"
        return f"old {self.text!r}"


def gen_scope_ad(rng: random.Random, depth: int) -> Node:
    """An ad whose attributes are the names expressions refer to."""
    names = rng.sample(NAMES, rng.randint(1, 6))
    return ["ad"] + [["attr", nm, gen_expr(rng, depth)] for nm in names]


def gen_case(rng: random.Random) -> Case:
    k = rng.random()
    if k < 0.6:
        expr = gen_expr(rng, rng.randint(1, 4))
        my = target = None
        if rng.random() < 0.6:
            my = gen_scope_ad(rng, 2)
            if rng.random() < 0.6:
                target = gen_scope_ad(rng, 2)
        if rng.random() < 0.1:
            return Case("expr", text=mutate_text(rng, render(expr)), my=my, target=target)
        return Case("expr", expr=expr, my=my, target=target)
    if k < 0.72:
        ad = gen_scope_ad(rng, 3)
        if rng.random() < 0.3:
            return Case("ad", text=mutate_text(rng, render(ad)))
        return Case("ad", expr=ad)
    if k < 0.85:
        left, right = gen_scope_ad(rng, 2), gen_scope_ad(rng, 2)
        for ad in (left, right):
            if rng.random() < 0.9:
                req = gen_expr(rng, 2)
                ad[:] = [a for a in ad if a[0] != "attr" or a[1] != "Requirements"]
                ad.append(["attr", rng.choice(["Requirements", "requirements"]), req])
        return Case("match", my=left, target=right)
    return Case("old", text=gen_old_text(rng))


def gen_old_text(rng: random.Random) -> str:
    lines: list[str] = []
    for _ in range(rng.randint(1, 8)):
        r = rng.random()
        if r < 0.12:
            lines.append("")
        elif r < 0.17:
            lines.append(rng.choice(["# comment", "// comment", "   ", "\t", "#", "/* x */"]))
        elif r < 0.22:
            lines.append(rng.choice(["junk", "= 1", "a =", "a == 1", "[a = 1]", "a = 1;", "-"]))
        else:
            name = r_ident(rng)
            value = render(gen_expr(rng, rng.randint(0, 2)))
            sep = rng.choice([" = ", "=", " =", "= ", "\t=\t", "  =  "])
            lines.append(rng.choice(["", " ", "\t"]) + name + sep + value.replace("\n", " "))
    text = "\n".join(lines)
    if rng.random() < 0.5:
        text += "\n"
    if rng.random() < 0.1:
        text = text.replace("\n", "\r\n")
    return text


def observe(mod: Any, case: Case) -> Any:
    """Everything one engine shows about a case, as a comparable structure."""
    E, A = mod.ExprTree, mod.ClassAd
    if case.kind == "expr":
        text = render(case.expr) if case.expr is not None else case.text
        ok, e = attempt(lambda: E(text))
        if not ok:
            return ("refused",)
        my = tg = None
        for f in ("my", "target"):
            if getattr(case, f) is not None:
                ok, ad = attempt(lambda f=f: A(render(getattr(case, f))))
                if not ok:
                    return ("refused", f)
                my, tg = (ad, tg) if f == "my" else (my, ad)
        if my is None:
            okv, v = attempt(lambda: e.eval())
        elif tg is None:
            okv, v = attempt(lambda: e.eval(scope=my))
        else:
            okv, v = attempt(lambda: e.eval(scope=my, target=tg))
        value = canon(mod, v) if okv else ("raised",)
        return ("value", value, ("unparse", norm_text(str(e))))
    if case.kind == "ad":
        text = render(case.expr) if case.expr is not None else case.text
        ok, ad = attempt(lambda: A(text))
        if not ok:
            return ("refused",)
        return ("ad", canon(mod, ad))
    if case.kind == "match":
        ok1, left = attempt(lambda: A(render(case.my)))
        ok2, right = attempt(lambda: A(render(case.target)))
        if not (ok1 and ok2):
            return ("refused", ok1, ok2)
        ok1, m = attempt(lambda: left.matches(right))
        ok2, s = attempt(lambda: left.symmetricMatch(right))
        return ("match", (ok1, m if ok1 else None), (ok2, s if ok2 else None))
    ok, ads = attempt(lambda: list(mod.parseAds(case.text, mod.ParserType.Old)))
    if not ok:
        return ("refused",)
    return ("old", tuple(canon(mod, a) for a in ads))


def differs(ref: Any, got: Any) -> str | None:
    """None when the observations agree, else which aspect differs."""
    if ref == got:
        return None
    if ref[0] == "value" and ref[1] == ("raised",):
        return None  # classad2 itself failed (e.g. a string that is not UTF-8)
    if ref[0] != got[0]:
        return "accepted" if ref[0] == "refused" or got[0] == "refused" else "kind"
    if ref[0] == "value":
        if ref[1] != got[1]:
            return "value"
        return "unparse"
    return ref[0]


def shrink(c2: Any, cx: Any, case: Case, aspect: str) -> Case:
    """A smaller case with the same kind of discrepancy."""

    def still(c: Case) -> bool:
        try:
            return differs(observe(c2, c), observe(cx, c)) == aspect
        except Exception:  # noqa: BLE001
            return False

    fields = [f for f in ("expr", "my", "target") if getattr(case, f) is not None]
    progress = True
    budget = 400
    while progress and budget > 0:
        progress = False
        for f in fields:
            tree = getattr(case, f)
            for cand in sorted(shrink_candidates(tree), key=size):
                if size(cand) >= size(tree):
                    continue
                if f != "expr" and cand[0] != "ad":
                    continue
                budget -= 1
                trial = Case(**{**case.__dict__, f: cand})
                if still(trial):
                    case, progress = trial, True
                    break
                if budget <= 0:
                    break
    return case


def run(cases: int, seed: int, show: int, shrink_them: bool = True) -> dict[str, list]:
    c2, cx = load_engines()
    rng = random.Random(seed)
    found: dict[str, list] = {}
    for _ in range(cases):
        case = gen_case(rng)
        ref, got = observe(c2, case), observe(cx, case)
        aspect = differs(ref, got)
        if aspect is None:
            continue
        if aspect == "accepted" and case.kind == "expr" and got[0] == "refused":
            text = case.text if case.text is not None else render(case.expr)
            if ";" in text or "]" in text:
                # classad2's ExprTree(text) reads the text as the value of an ad attribute,
                # so `1 ]junk` and `1; a = 2` are the expression 1: a quirk of its bindings.
                continue
        key = f"{case.kind}/{aspect}"
        bucket = found.setdefault(key, [])
        if len(bucket) < show:
            if shrink_them:
                case = shrink(c2, cx, case, aspect)
            bucket.append((case.describe(), observe(c2, case), observe(cx, case)))
        else:
            bucket.append(None)
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", type=int, default=5)
    ap.add_argument("--no-shrink", action="store_true")
    a = ap.parse_args()
    found = run(a.cases, a.seed, a.show, not a.no_shrink)
    total = 0
    for key, items in sorted(found.items()):
        total += len(items)
        print(f"== {key}: {len(items)} cases")
        for item in items:
            if item is None:
                continue
            desc, ref, got = item
            print(f"  {desc}\n    classad2: {ref}\n    condorx:  {got}")
    print(f"{a.cases} cases, {total} discrepancies")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
