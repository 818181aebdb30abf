"""The Go parameter translator: papermill's values written as Go, the way
`commlab run -p name=value` writes them (notebook/runner/params.go in commlab).

Importing this module registers GoTranslator with papermill's translator
registry for the kernel name "commlab" and, unless another package claimed
it first, for the language "go".
"""
import math
import re
import unicodedata
from decimal import Decimal

from papermill.exceptions import PapermillException
from papermill.models import Parameter
from papermill.translators import Translator, papermill_translators

KERNEL_NAME = "commlab"
LANGUAGE = "go"

GO_KEYWORDS = frozenset(
    "break case chan const continue default defer else fallthrough for func go goto if import "
    "interface map package range return select struct switch type var".split()
)

# The escapes strconv.Quote writes by name.
_NAMED_ESCAPES = {"\a": r"\a", "\b": r"\b", "\f": r"\f", "\n": r"\n", "\r": r"\r", "\t": r"\t", "\v": r"\v"}


class GoParameterError(PapermillException, ValueError):
    """A parameter value Go cannot take, or a name Go cannot declare."""


def go_quote(s):
    """s as Go's strconv.Quote writes it: printable runes as they are, the
    named escapes, \\xNN below space and for DEL, \\uNNNN and \\UNNNNNNNN
    for the rest. A lone surrogate (JSON's "\\ud800") is not UTF-8; Go sees
    its bytes and writes each as \\xNN."""
    out = ['"']
    for ch in s:
        c = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 0xD800 <= c <= 0xDFFF:
            out.extend("\\x%02x" % b for b in ch.encode("utf-8", "surrogatepass"))
        elif _go_is_print(ch):
            out.append(ch)
        elif ch in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[ch])
        elif c < 0x20 or c == 0x7F:
            out.append("\\x%02x" % c)
        elif c < 0x10000:
            out.append("\\u%04x" % c)
        else:
            out.append("\\U%08x" % c)
    out.append('"')
    return "".join(out)


def _go_is_print(ch):
    """strconv.IsPrint: letters, marks, numbers, punctuation, symbols and
    the ASCII space. (The Unicode versions of Python and Go may differ for
    characters assigned lately: those are then escaped by one and not the
    other, the string's value is the same.)"""
    return ch == " " or unicodedata.category(ch)[0] in "LMNPS"


def go_float(f):
    """f as strconv.FormatFloat(f, 'g', -1, 64) writes it, with ".0" added
    when that leaves no decimal point or exponent, so that Go infers
    float64 (notebook/runner/params.go's floatLit). NaN and the infinities have no Go
    constant: they are refused."""
    if math.isnan(f) or math.isinf(f):
        raise GoParameterError(
            "%r has no Go constant (NaN and the infinities are not constants): "
            "set it in the notebook with math.NaN() or math.Inf(1)" % f
        )
    sign, digits, exp = Decimal(repr(f)).as_tuple()  # repr is the shortest round trip, as Go's -1
    neg = "-" if sign else ""
    digits = list(digits)
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
        exp += 1
    if digits == [0]:
        return neg + "0.0"
    nd = len(digits)
    dp = nd + exp  # the value is 0.d1d2... x 10^dp
    x = dp - 1
    if x < -4 or x >= 6:  # %e: shortest 'g' decides with precision 6
        s = str(digits[0])
        if nd > 1:
            s += "." + "".join(map(str, digits[1:]))
        s += "e" + ("-" if x < 0 else "+") + "%02d" % abs(x)
        return neg + s
    if dp > 0:
        whole = "".join(map(str, digits[:dp])) + "0" * max(dp - nd, 0)
    else:
        whole = "0"
    frac = "".join(str(digits[i]) if 0 <= i < nd else "0" for i in range(dp, nd))
    s = whole + ("." + frac if frac else "")
    if not any(c in s for c in ".eEnN"):
        s += ".0"
    return neg + s


def is_go_identifier(name):
    """A Go identifier (a letter or _, then letters, _ and decimal digits)
    that is not a keyword."""
    if not isinstance(name, str) or not name or name in GO_KEYWORDS:
        return False
    for i, ch in enumerate(name):
        cat = unicodedata.category(ch)
        if ch == "_" or cat.startswith("L"):
            continue
        if i > 0 and cat == "Nd":
            continue
        return False
    return True


def go_type(val):
    """The Go type of the literal GoTranslator writes for val, or None for
    None (nil, which has no type of its own)."""
    if val is None:
        return None
    if isinstance(val, bool):
        return "bool"
    if isinstance(val, int):
        return "int"
    if isinstance(val, float):
        return "float64"
    if isinstance(val, str):
        return "string"
    if isinstance(val, (list, tuple)):
        return "[]" + _element_type(val)
    if isinstance(val, dict):
        return "map[string]any"
    return "string"  # anything else is written as its text, as papermill's translators do


def _element_type(items):
    """One Go type for a list's elements: the type they share; float64 for
    ints mixed with floats (Go converts the untyped int constants); any
    otherwise, and for an empty list or one holding nil."""
    kinds = {go_type(v) for v in items}
    if len(kinds) == 1 and None not in kinds:
        return kinds.pop()
    if kinds == {"int", "float64"}:
        return "float64"
    return "any"


class GoTranslator(Translator):
    """papermill parameters as Go assignments: `name = value`, one a line,
    names sorted, after "// Parameters", as `commlab run -p` injects them."""

    @classmethod
    def translate_none(cls, val):
        return "nil"  # only inside []any and map[string]any; codify refuses a None parameter

    @classmethod
    def translate_escaped_str(cls, str_val):
        return go_quote(str_val if isinstance(str_val, str) else str(str_val))

    @classmethod
    def translate_str(cls, val):
        return go_quote(val)

    @classmethod
    def translate_int(cls, val):
        return str(int(val))

    @classmethod
    def translate_float(cls, val):
        return go_float(val)

    @classmethod
    def translate_bool(cls, val):
        return "true" if val else "false"

    @classmethod
    def translate_list(cls, val):
        return cls._slice(val, _element_type(val))

    @classmethod
    def _slice(cls, items, elem):
        if elem == "float64":
            parts = [go_float(float(v)) if isinstance(v, int) and not isinstance(v, bool) else cls.translate(v) for v in items]
        else:
            parts = [cls.translate(v) for v in items]
        return "[]%s{%s}" % (elem, ", ".join(parts))

    @classmethod
    def translate_dict(cls, val):
        parts = []
        for k, v in val.items():
            if not isinstance(k, str):
                raise GoParameterError(
                    "a map key %r is a %s: Go maps here have string keys (map[string]any)" % (k, type(k).__name__)
                )
            parts.append("%s: %s" % (go_quote(k), cls.translate(v)))
        return "map[string]any{%s}" % ", ".join(parts)

    @classmethod
    def translate(cls, val):
        if isinstance(val, tuple):
            val = list(val)
        return super().translate(val)

    @classmethod
    def comment(cls, cmt_str):
        return ("// " + cmt_str).strip()

    @classmethod
    def assign(cls, name, str_val):
        return "%s = %s" % (name, str_val)

    @classmethod
    def codify(cls, parameters, comment="Parameters"):
        lines = [cls.comment(comment)]
        for name in sorted(parameters):
            val = parameters[name]
            if not is_go_identifier(name):
                raise GoParameterError("commlab-papermill: parameter %r is not a Go identifier" % (name,))
            if val is None:
                raise GoParameterError(
                    "commlab-papermill: parameter %s is None (null): Go has no nil for the int, float64, string "
                    "or bool a parameters cell declares; give a value, or leave the parameter out to keep its default"
                    % name
                )
            try:
                lines.append(cls.assign(name, cls.translate(val)))
            except GoParameterError as e:
                raise GoParameterError("commlab-papermill: parameter %s: %s" % (name, e)) from None
        return "\n".join(lines)

    @classmethod
    def inspect(cls, parameters_cell):
        """The parameters a Go parameters cell declares (`name := value`,
        `var name [type] = value`, `const name = value`, and the lines of a
        `var (...)` block), for `papermill --help-notebook`."""
        return [Parameter(*p) for p in inspect_go(parameters_cell.source)]


def inspect_go(source):
    """(name, type, default, help) for each declaration of a parameters cell."""
    params = []
    lines = source.split("\n")
    i, block = 0, None
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if block:
            if line.startswith(")"):
                block = None
                continue
            decl = line
        elif line.startswith(("var (", "const (")) or line in ("var(", "const("):
            block = line.split()[0].rstrip("(")
            continue
        elif line.startswith(("var ", "const ")):
            decl = line.split(None, 1)[1]
        else:
            decl = line
        if decl.count("`") % 2 == 1:  # a raw string over several lines
            while decl.count("`") % 2 == 1 and i < len(lines):
                decl += "\n" + lines[i]
                i += 1
        code, comment = _split_comment(decl)
        p = _declaration(code)
        if p:
            params.append(p + (comment,))
    return params


def _split_comment(line):
    """line's code and its // comment, with quotes respected."""
    quote, k = None, 0
    while k < len(line):
        c = line[k]
        if quote:
            if c == "\\" and quote != "`":
                k += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif line.startswith("//", k):
            return line[:k].rstrip(), line[k + 2 :].strip()
        k += 1
    return line.rstrip(), ""


def _declaration(code):
    """(name, type, default) of `name := v`, `name = v`, `name type = v`."""
    if ":=" in code:
        name, _, value = code.partition(":=")
        typ = None
    elif "=" in code:
        left, _, value = code.partition("=")
        parts = left.split()
        if not parts:
            return None
        name, typ = parts[0], (" ".join(parts[1:]) or None)
    else:
        return None
    name, value = name.strip(), value.strip()
    if not is_go_identifier(name) or not value:
        return None
    return (name, typ or _literal_type(value) or "None", value)


def _literal_type(value):
    """The type Go gives an untyped literal default (notebook/runner/params.go's
    inferType, for the literals parameters cells use)."""
    v = value.strip()
    if v in ("true", "false"):
        return "bool"
    if v[:1] in "\"`":
        return "string"
    if v[:1] == "'":
        return "rune"
    if v.startswith("time.") and v.split(".")[1].split()[0] in ("Nanosecond", "Microsecond", "Millisecond", "Second", "Minute", "Hour"):
        return "time.Duration"
    num = v.lstrip("+-")
    if _GO_INT.fullmatch(num):
        return "int"
    if _GO_FLOAT.fullmatch(num):
        return "float64"
    return None


_GO_INT = re.compile(r"0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO]?[0-7_]*|[1-9][0-9_]*")
_GO_FLOAT = re.compile(r"(?:[0-9][0-9_]*\.?[0-9_]*|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9_]+)?|0[xX][0-9a-fA-F_.]+[pP][+-]?[0-9_]+")


def register():
    """Register GoTranslator for the commlab kernel, and for the language go
    unless another translator has it."""
    papermill_translators.register(KERNEL_NAME, GoTranslator)
    try:
        papermill_translators.find_translator("", LANGUAGE)
    except PapermillException:
        papermill_translators.register(LANGUAGE, GoTranslator)


register()
