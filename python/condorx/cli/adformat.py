"""Job ads as HTCondor's condor_q and condor_history print them for programs: -long, -json,
-xml, -autoformat (-af, with its qualifiers) and -format.

What each prints follows HTCondor's ClassAd printing (compat_classad's list writer and the
ClassAd pretty printer, ad_printmask):

- `-long`: each ad's attributes sorted by name (case-blind), `Name = expr` in old ClassAd
  syntax, and a blank line after each ad.
- `-json`: `[` on a line, each ad as a JSON object (sorted likewise), a line `,` between
  two ads, `]` last; nothing at all when no ad matched.
- `-xml`: the classads DTD's header, each ad as `<c>` with one `<a n="...">` a line, the
  footer; header and footer even when no ad matched.
- `-af[:jlhVr,tng]`: the expressions' values, space-separated, a line per ad. Qualifiers:
  j the job id first; l `Name = value` labels; h a heading line; V strings quoted (%V);
  r raw (unevaluated) expressions; `,` a comma after each field; t a tab before each field
  instead of a space; n a newline after each field; g a newline between ads and no space
  before each field. Other letters (HTCondor 24/25 defines none: T and Y among them) are
  ignored, as HTCondor ignores them.
- `-format FMT EXPR`: printf(3)-style, one conversion per format; %v and %V as above, %r
  raw; a value of the wrong type for the conversion prints nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from condorx.classad import ClassAd, ExprTree, Value, eval_each
from condorx.cli import args as a
from condorx.record import record

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

# The options condor_q and condor_history share: which jobs, and how their ads are printed.
JOB_AD_OPTIONS = [
    a.Opt("constraint", 5, 1, help="only jobs this expression is true of", metavar="EXPR"),
    a.Opt("long", 1, help="whole job ads, old ClassAd syntax, a blank line after each"),
    a.Opt(
        "autoformat",
        5,  # as HTCondor's: -au is condor_q's -autocluster
        -1,
        ("af",),
        help="the expressions' values; -af:jlhVr,tng qualifiers (see the manual)",
        metavar="[:QUALS] EXPR...",
    ),
    a.Opt("format", 3, 2, help="printf-style FMT of EXPR (repeatable)", metavar="FMT EXPR"),
    a.Opt("json", 2, help="whole job ads as a JSON array"),
    a.Opt("xml", 2, help="whole job ads as ClassAd XML"),
    a.Opt("attributes", 4, 1, help="with -long/-json/-xml: only these", metavar="A,B,..."),
]

XML_HEADER = '<?xml version="1.0"?>\n<!DOCTYPE classads SYSTEM "classads.dtd">\n<classads>\n'
XML_FOOTER = "</classads>\n"


# -- values as text -------------------------------------------------------------------------


def old_text(value: Any) -> str:
    """A value or an ExprTree in old ClassAd syntax, as HTCondor's unparser writes it
    (strings quoted)."""
    tmp = ClassAd()
    tmp["x"] = value
    return tmp.printOld().rstrip("\n").partition(" = ")[2]


def value_text(value: Any, quoted: bool = False) -> str:
    """%v (a string as it is) or %V (a string quoted); anything else as old syntax."""
    if isinstance(value, str) and not quoted:
        return value
    kind = type(value)  # the common values written at once, not through an ad
    if kind is int:
        return str(value)
    if kind is bool:
        return "true" if value else "false"
    if value is Value.Undefined:
        return "undefined"
    return old_text(value)


def names(ad: ClassAd, only: Sequence[str] | None = None) -> list[str]:
    """The ad's attribute names, sorted as HTCondor sorts them (case-blind); with `only`,
    just those of them the ad has."""
    have = list(ad.keys())
    if only:
        wanted = {n.lower() for n in only}
        have = [n for n in have if n.lower() in wanted]
    return sorted(have, key=str.lower)


def _sorted_ad(ad: ClassAd, only: Sequence[str] | None = None) -> ClassAd:
    out = ClassAd()
    for name in names(ad, only):
        out[name] = ad.lookup(name)
    return out


def _lookup(ad: ClassAd, name: str) -> ExprTree | None:
    """The attribute's own expression, if `name` is an attribute the ad has."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name not in ad:
        return None
    return ad.lookup(name)


# -- whole ads ------------------------------------------------------------------------------


def long_ad(ad: ClassAd, only: Sequence[str] | None = None) -> str:
    """One ad as `-long` prints it, with the blank line that follows it."""
    lines = [f"{n} = {old_text(ad.lookup(n))}\n" for n in names(ad, only)]
    return "".join(lines) + "\n" if lines else ""


class JsonWriter:
    """-json: `[`, the ads with `,` lines between them, `]`; nothing for no ads."""

    def __init__(self, only: Sequence[str] | None = None) -> None:
        self.only = only
        self.count = 0

    def ad(self, ad: ClassAd) -> str:
        body = _sorted_ad(ad, self.only).printJson().rstrip("\n")
        if len(body) <= 2:  # an empty ad is left out
            return ""
        head = ",\n" if self.count else "[\n"
        self.count += 1
        return head + body + "\n"

    def footer(self) -> str:
        return "]\n" if self.count else ""


class XmlWriter:
    """-xml: the header, each ad as <c>...</c>, the footer (header and footer always)."""

    def __init__(self, only: Sequence[str] | None = None) -> None:
        self.only = only

    def header(self) -> str:
        return XML_HEADER

    def ad(self, ad: ClassAd) -> str:
        return _xml_ad([(n, ad.lookup(n)) for n in names(ad, self.only)], 0)

    def footer(self) -> str:
        return XML_FOOTER


def _xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _xml_ad(attrs: list[tuple[str, Any]], indent: int) -> str:
    out = ["<c>\n"]
    for name, expr in attrs:
        out.append(" " * (indent + 4) + f'<a n="{_xml_escape(name)}">')
        out.append(_xml_expr(expr, indent + 4))
        out.append("</a>\n")
    out.append(" " * indent + "</c>")
    if indent == 0:
        out.append("\n")
    return "".join(out)


def _xml_expr(expr: Any, indent: int) -> str:
    """A literal (or list, or nested ad) as its value's tags; anything else as <e>."""
    text = old_text(expr)
    value = ExprTree(text).eval(ClassAd()) if isinstance(expr, ExprTree) else expr
    if isinstance(expr, ExprTree) and old_text(value) != text:
        return f"<e>{_xml_escape(text)}</e>"
    return _xml_value(value, indent)


def _xml_value(value: Any, indent: int) -> str:
    if value is Value.Undefined:
        return "<un/>"
    if value is Value.Error:
        return "<er/>"
    if isinstance(value, bool):
        return f'<b v="{"t" if value else "f"}"/>'
    if isinstance(value, int):
        return f"<i>{value}</i>"
    if isinstance(value, float):
        return f"<r>{_xml_real(value)}</r>"
    if isinstance(value, str):
        return f"<s>{_xml_escape(value)}</s>"
    if isinstance(value, ClassAd):
        return _xml_ad([(n, value.lookup(n)) for n in value.keys()], indent)
    if isinstance(value, list):
        return "<l>" + "".join(_xml_expr(v, indent) for v in value) + "</l>"
    return f"<e>{_xml_escape(old_text(value))}</e>"


def _xml_real(x: float) -> str:
    if x == 0.0:
        return "-0.0" if str(x).startswith("-") else "0.0"
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "INF" if x > 0 else "-INF"
    return f"{x:1.15E}"


# -- -autoformat ----------------------------------------------------------------------------


@record
class AutoFormat:
    """-af with its qualifiers over expressions (see the module doc)."""

    exprs: list[str]
    quals: str = ""

    def __post_init__(self) -> None:
        q = self.quals
        self.label = "l" in q
        self.quoted = "V" in q
        self.raw = "r" in q or "o" in q
        self.headings = "h" in q
        self.job_id = "j" in q
        self.row_prefix = ""
        self.col_prefix = " "
        self.col_suffix = ""
        for c in q:  # in order, as HTCondor reads them: a later letter may undo an earlier
            if c == ",":
                self.col_suffix = ","
            elif c == "n":
                self.col_suffix = "\n"
            elif c == "g":
                self.col_prefix, self.row_prefix = "", "\n"
            elif c == "t":
                self.col_prefix = "\t"
        if self.headings:
            self.label = False  # h wins over l, as in HTCondor
        self.parsed = [_parse(e) for e in self.exprs]

    def cells(self, ad: ClassAd) -> list[str]:
        """The fields of one ad: (with j) the job id's two parts, then each expression."""
        return self.cells_of([ad])[0]

    def cells_of(self, ads: list[ClassAd]) -> list[list[str]]:
        """The fields of each ad, each expression evaluated over all of them at once."""
        rows: list[list[str]] = [[] for _ in ads]
        if self.job_id:
            for out, ad in zip(rows, ads, strict=True):
                cluster, proc = ad.get("ClusterId"), ad.get("ProcId")
                if self.headings:
                    out += [f"{_num(cluster):>4}.", f"{_num(proc):<3}"]
                else:
                    out += [("ID = " if self.label else "") + f"{_num(cluster)}.", _num(proc)]
        for text, tree in zip(self.exprs, self.parsed, strict=True):
            label = f"{text} = " if self.label else ""
            for out, cell in zip(rows, self._column(text, tree, ads), strict=True):
                out.append(label + cell)
        return rows

    def _column(self, text: str, tree: ExprTree | None, ads: list[ClassAd]) -> list[str]:
        if self.raw:
            return [self._raw(text, tree, ad) for ad in ads]
        if tree is None:
            return [value_text(Value.Error, self.quoted)] * len(ads)
        return [value_text(v, self.quoted) for v in eval_each(tree, ads)]

    @staticmethod
    def _raw(text: str, tree: ExprTree | None, ad: ClassAd) -> str:
        own = _lookup(ad, text)
        if own is not None:
            return old_text(own)
        if tree is not None and _is_name(text):
            return "undefined"
        return old_text(tree) if tree is not None else ""

    def row(self, cells: Sequence[str], widths: Sequence[int] | None = None) -> str:
        """One line (or, with n or g, several) from the cells, as HTCondor joins them."""
        parts = [self.row_prefix]
        n = len(cells)
        for i, cell in enumerate(cells):
            first, last = i == 0, i == n - 1
            id_proc = self.job_id and i == 1  # the proc follows the cluster directly
            id_cluster = self.job_id and i == 0
            if not first and not id_proc:
                parts.append(self.col_prefix)
            if widths is not None and not (self.job_id and i < 2):
                cell = f"{cell:<{widths[i]}}"
            parts.append(cell)
            if not last and not id_cluster:
                parts.append(self.col_suffix)
        parts.append("\n")
        return "".join(parts)

    def heading_cells(self) -> list[str]:
        return ([" ID", " "] if self.job_id else []) + list(self.exprs)

    def render(self, ads: Iterable[ClassAd]) -> Iterator[str]:
        """The text for all the ads; with headings, once every width is known."""
        return self.render_cells(self.cells_of(list(ads)))

    def labelled(self, rows: Iterable[Sequence[str]]) -> list[list[str]]:
        """Cells already written (each expression's value, in order), with l's labels."""
        if not self.label:
            return [list(r) for r in rows]
        return [[f"{t} = {c}" for t, c in zip(self.exprs, r, strict=True)] for r in rows]

    def render_cells(self, rows: list[list[str]]) -> Iterator[str]:
        """The text for rows of cells; with headings, once every width is known."""
        if not self.headings:
            for cells in rows:
                yield self.row(cells)
            return
        heads = self.heading_cells()
        widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(heads)]
        if self.job_id:
            widths[0], widths[1] = max(widths[0], 5), max(widths[1], 3)
            heads[0], heads[1] = f"{heads[0]:<{widths[0]}}", f"{heads[1]:<{widths[1]}}"
        yield self.row(heads, widths)
        for r in rows:
            yield self.row(r, widths)


def _num(v: Any) -> str:
    return str(v) if isinstance(v, int) and not isinstance(v, bool) else "undefined"


def _is_name(text: str) -> bool:
    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text) is not None


def _parse(text: str) -> ExprTree | None:
    try:
        return ExprTree(text)
    except ValueError:
        return None


def attributes_read(exprs: Sequence[str]) -> list[str]:
    """The attributes of the ad `exprs` read (`MY.x` as `x`; `a.b` as `a`); what TARGET
    names is not the ad's."""
    names: dict[str, str] = {}
    for text in exprs:
        tree = _parse(text)
        if tree is None:
            continue
        for ref in _EMPTY.externalRefs(tree):
            scope, _, rest = ref.partition(".")
            if scope.lower() == "target":
                continue
            name = rest.partition(".")[0] if scope.lower() == "my" and rest else scope
            names.setdefault(name.lower(), name)
    return list(names.values())


_EMPTY = ClassAd()


def check_exprs(exprs: Sequence[str]) -> str | None:
    """The first of `exprs` that is no ClassAd expression, if any."""
    return next((e for e in exprs if _parse(e) is None), None)


# -- -format --------------------------------------------------------------------------------

_SPEC = re.compile(
    r"%(?P<flags>[-+ #0']*)(?P<width>\d+)?(?:\.(?P<prec>\d*))?"
    r"(?P<len>hh|h|ll|l|L|q|j|z|t)?(?P<conv>[diouxXeEfFgGaAcsvVr])"
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def collapse_escapes(text: str) -> str:
    r"""HTCondor's escapes in a -format string: \n, \t, \\, \" and the rest of C's."""
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), text, flags=re.DOTALL)


class Format:
    """One `-format FMT EXPR`."""

    def __init__(self, fmt: str, expr: str) -> None:
        self.fmt = collapse_escapes(fmt)
        self.expr = expr
        self.tree = _parse(expr)
        self.spec = _find_spec(self.fmt)

    def render(self, ad: ClassAd) -> str:
        if self.spec is None:
            return self.fmt  # no conversion: the text as it is (a newline after others)
        own = _lookup(ad, self.expr)
        tree = own if own is not None else self.tree
        if tree is None:
            return ""
        conv = self.spec.group("conv")
        if conv == "r":
            return self._put(old_text(tree), "s")
        value = tree.eval(ad)
        if conv in "vV":
            return self._put(value_text(value, conv == "V"), "s")
        if conv == "s":
            if isinstance(value, str):
                return self._put(value, "s")
            # an attribute (not an expression) that is no string prints as its expression
            return self._put(old_text(tree), "s") if own is not None else ""
        if isinstance(value, bool):
            value = int(value)
        if not isinstance(value, int | float):
            return ""
        if conv in "diouxXc":
            return self._put(int(value), "d" if conv in "iu" else conv)
        return self._put(float(value), conv)

    def _put(self, value: Any, conv: str) -> str:
        assert self.spec is not None
        s = self.spec
        spec = "%" + s.group("flags").replace("'", "") + (s.group("width") or "")
        if s.group("prec") is not None:
            spec += "." + s.group("prec")
        try:
            text = (spec + conv) % value
        except (TypeError, ValueError, OverflowError):
            return ""
        before = self.fmt[: s.start()].replace("%%", "%")
        after = self.fmt[s.end() :].replace("%%", "%")
        return before + text + after


def _find_spec(fmt: str) -> re.Match[str] | None:
    i = 0
    while True:
        i = fmt.find("%", i)
        if i < 0 or i + 1 >= len(fmt):
            return None
        if fmt[i + 1] == "%":
            i += 2
            continue
        return _SPEC.match(fmt, i)


def render_formats(formats: Sequence[Format], ad: ClassAd) -> str:
    return "".join(f.render(ad) for f in formats)


def json_dumps_ads(ads: Iterable[ClassAd]) -> str:
    """All of `ads` as -json prints them (for tests and small callers)."""
    w = JsonWriter()
    return "".join(w.ad(ad) for ad in ads) + w.footer()


__all__ = [
    "AutoFormat",
    "Format",
    "JsonWriter",
    "XmlWriter",
    "check_exprs",
    "long_ad",
    "old_text",
    "render_formats",
    "value_text",
]
