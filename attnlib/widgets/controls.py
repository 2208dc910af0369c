"""What the reader controls: :class:`Slider`, :class:`Choice` and :class:`Text` (see
:mod:`attnlib.widgets`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from attnlib import _validate
from attnlib import domains as D
from attnlib._validate import _scalar


class ExplorerError(ValueError):
    """A declaration is invalid or an update function returned unusable data."""


def _name_domain(value: object, name: str, fn: str) -> str:
    _check_name(value, fn)
    return value


#: the domains the toolkit's records declare (attnlib.domains.declare, with
#: error=ExplorerError: every refusal of a declaration is an ExplorerError): a control's or a
#: panel's name (a Python identifier), a text shown on the page, an optional one, a flag,
#: texts one per item, and what the record's __post_init__ checks against its other fields
NAME = D.Checked(_name_domain)
TEXT = D.Str()
OPTIONAL_TEXT = D.Str(optional=True)
FLAG = D.Bool()
TEXTS = D.StrList(optional=True)


def checked_later(what: str) -> D.Anything:
    return D.Anything(f"{what}: checked in __post_init__")


def record(_name: str | None = None, **domains: D.Domain):
    """``declare`` for the toolkit's records: refusals are ExplorerErrors, and a record with
    a ``name`` is named by it in them (``Slider 'temperature': ...``), which of a page's
    controls or panels is wrong."""
    named_by = "name" if "name" in domains else None
    return D.declare(_name, error=ExplorerError, named_by=named_by, **domains)


def _declared(check, value, name: str, where: str, **kwargs):
    """``check(value, name, where, ...)`` from :mod:`attnlib._validate`, its TypeError or
    ValueError raised as an ExplorerError (what every declaration error is)."""
    try:
        return check(value, name, where, **kwargs)
    except (TypeError, ValueError) as exc:
        raise ExplorerError(str(exc)) from None


def _label(value: object, name: str, where: str) -> str | None:
    """A text shown on the page (label, title): a string, or None for the default."""
    return _declared(_validate.as_str, value, name, where, optional=True)


def _labels(value: object, name: str, where: str, n: int | None = None, what: str = "value"):
    """Texts shown one per item: a list of strings (not a bare string), ``n`` of them."""
    if value is None:
        return None
    labels = _declared(_validate.as_str_list, value, name, where)
    if n is not None and len(labels) != n:
        raise ExplorerError(
            f"{where}: {name} has {len(labels)} entries, expected one per {what} ({n}), as many "
            f"as the {what}s"
        )
    return labels


def _flag(value: object, name: str, where: str) -> bool:
    return _declared(_validate.as_bool, value, name, where)


# ----------------------------------------------------------------------------- parameters


def _format_number(v: float, digits: int = 3) -> str:
    """Short label for a slider value, e.g. 0.05, 1.5, 20, 512."""
    if float(v).is_integer() and abs(v) < 1e6:
        return str(int(v))
    return f"{v:.{digits}g}"


def _distinct_labels(values: Sequence[float]) -> list[str]:
    """The shortest labels (3 significant digits or more) that tell every value apart:
    100.0, 100.1 and 100.2 read "100", "100.1", "100.2", never "100" three times."""
    for digits in range(3, 18):
        out = [_format_number(v, digits) for v in values]
        if len(set(out)) == len(out):
            return out
    return [repr(v) for v in values]


@record(
    name=NAME,
    values=checked_later("distinct finite numbers, at least one"),
    label=OPTIONAL_TEXT,
    default=checked_later("one of values, or None"),
    value_labels=TEXTS,
    play=FLAG,
)
@dataclass(frozen=True)
class Slider:
    """A numeric parameter: a slider over an explicit list of values.

    Args:
        name: keyword passed to the update function.
        values: the values the slider can take, in slider order (non-empty, finite,
            distinct). Integers stay ints, so ``update`` may use them as lengths.
        label: text shown before the slider (default: ``name``).
        default: initial value (must be one of ``values``; default: the middle one).
        value_labels: optional text shown for each value, distinct (default: the shortest
            numbers that tell the values apart, e.g. 100, 100.1, 100.2).
        play: show a Play button (and a speed choice) that steps through the values to the
            last one, e.g. training steps or a sweep; with prefers-reduced-motion it steps
            once per press instead.
    """

    name: str
    values: Sequence[float]
    label: str | None = None
    default: float | None = None
    value_labels: Sequence[str] | None = None
    play: bool = False

    kind = "slider"

    def __post_init__(self) -> None:
        _check_name(self.name, "Slider")
        where = f"Slider {self.name!r}"
        if isinstance(self.values, (str, bytes)):
            raise ExplorerError(
                f"{where}: values must be a list of numbers; got a str ({self.values!r})"
            )
        vals = list(self.values) if self.values is not None else []
        if not vals:
            raise ExplorerError(f"{where}: values must be a non-empty list; got {self.values!r}")
        clean = [_slider_value(v, where) for v in vals]
        if len(set(clean)) != len(clean):
            raise ExplorerError(f"{where}: values must be distinct; got {clean!r}")
        object.__setattr__(self, "values", tuple(clean))
        object.__setattr__(self, "label", _label(self.label, "label", where))
        object.__setattr__(
            self, "value_labels", _labels(self.value_labels, "value_labels", where, len(clean))
        )
        if self.value_labels is not None and len(set(self.value_labels)) != len(clean):
            raise ExplorerError(
                f"{where}: value_labels must tell the values apart (distinct); got "
                f"{list(self.value_labels)!r}"
            )
        object.__setattr__(self, "play", _flag(self.play, "play", where))
        if self.default is not None:
            d = _scalar(self.default)
            if isinstance(d, bool) or not isinstance(d, (int, float)) or d not in clean:
                raise ExplorerError(
                    f"{where}: default {self.default!r} is not one of the values {clean!r}"
                    + (" (a bool is not a number here)" if isinstance(d, bool) else "")
                )
            object.__setattr__(self, "default", clean[clean.index(d)])

    @property
    def options(self) -> tuple:
        return self.values

    def labels(self) -> list[str]:
        if self.value_labels is not None:
            return [str(s) for s in self.value_labels]
        return _distinct_labels(self.values)

    def default_index(self) -> int:
        if self.default is None:
            return (len(self.values) - 1) // 2
        return self.values.index(self.default)


@record(
    name=NAME,
    options=D.StrList(nonempty=True),
    label=OPTIONAL_TEXT,
    default=D.Str(optional=True),
    option_labels=TEXTS,
)
@dataclass(frozen=True)
class Choice:
    """A parameter chosen among string options (a drop-down list).

    Args:
        name: keyword passed to the update function.
        options: the strings the update function accepts (non-empty, distinct).
        label: text shown before the list (default: ``name``).
        default: initial option (default: the first).
        option_labels: optional text shown for each option (default: the option itself).
    """

    name: str
    options: Sequence[str]
    label: str | None = None
    default: str | None = None
    option_labels: Sequence[str] | None = None

    kind = "choice"

    def __post_init__(self) -> None:
        _check_name(self.name, "Choice")
        where = f"Choice {self.name!r}"
        if self.options is None or (
            not isinstance(self.options, (str, bytes)) and not list(self.options)
        ):
            raise ExplorerError(f"{where}: options must be a non-empty list; got {self.options!r}")
        opts = list(_declared(_validate.as_str_list, self.options, "options", where))
        if len(set(opts)) != len(opts):
            raise ExplorerError(f"{where}: options must be distinct; got {opts!r}")
        object.__setattr__(self, "options", tuple(opts))
        object.__setattr__(self, "label", _label(self.label, "label", where))
        object.__setattr__(
            self,
            "option_labels",
            _labels(self.option_labels, "option_labels", where, len(opts), "option"),
        )
        if self.default is not None and self.default not in opts:
            raise ExplorerError(f"{where}: default {self.default!r} is not one of {opts!r}")

    @property
    def values(self) -> tuple:
        return self.options

    def labels(self) -> list[str]:
        if self.option_labels is not None:
            return [str(s) for s in self.option_labels]
        return list(self.options)

    def default_index(self) -> int:
        return 0 if self.default is None else self.options.index(self.default)


@record(
    name=NAME,
    default=TEXT,
    label=OPTIONAL_TEXT,
    suggestions=D.StrList(),
    max_length=D.Int(ge=1),
)
@dataclass(frozen=True)
class Text:
    """A line of text the reader types (or picks from suggestions), e.g. a sentence.

    Only for explorers computed in the page (``live=``): a typed text has no grid to
    precompute. The update function receives the string.

    Args:
        name: keyword passed to the update function.
        default: the text the explorer opens with.
        label: text shown before the field (default: ``name``).
        suggestions: texts offered in the field's drop-down list (the reader may still type
            anything).
        max_length: the field accepts at most this many characters.
    """

    name: str
    default: str
    label: str | None = None
    suggestions: Sequence[str] = ()
    max_length: int = 80

    kind = "text"

    def __post_init__(self) -> None:
        _check_name(self.name, "Text")
        where = f"Text {self.name!r}"
        if not isinstance(self.default, str):
            raise ExplorerError(f"{where}: default must be a string; got {self.default!r}")
        object.__setattr__(self, "label", _label(self.label, "label", where))
        try:
            self.check(self.default, f"{where}: default", limit=False)
        except (TypeError, ValueError) as exc:
            raise ExplorerError(str(exc)) from None
        sugg = _declared(_validate.as_str_list, self.suggestions, "suggestions", where)
        for t in sugg:
            try:
                self.check(t, f"{where}: suggestion {t!r}", limit=False)
            except (TypeError, ValueError) as exc:
                raise ExplorerError(str(exc)) from None
        object.__setattr__(self, "suggestions", sugg)
        max_length = _declared(_validate.as_int, self.max_length, "max_length", where, min=1)
        if len(self.default) > max_length:
            raise ExplorerError(
                f"{where}: max_length must be a positive int holding the default "
                f"({len(self.default)} characters); got {max_length}"
            )
        too_long = [t for t in sugg if len(t) > max_length]
        if too_long:
            raise ExplorerError(
                f"{where}: suggestions must fit the field (max_length {max_length} "
                f"characters); got {too_long[0]!r} ({len(too_long[0])} characters)"
            )
        object.__setattr__(self, "max_length", max_length)

    def check(self, value: object, where: str, limit: bool = True) -> str:
        """The value, if a text field can hold it: a string of one line (a browser's text
        field drops line breaks), encodable as UTF-8, of at most ``max_length`` characters."""
        if not isinstance(value, str):
            raise TypeError(f"{where}: {self.name} must be a string; got {type(value).__name__}")
        if limit and len(value) > self.max_length:
            raise ValueError(
                f"{where}: {self.name} holds at most {self.max_length} characters; got "
                f"{len(value)}"
            )
        if "\n" in value or "\r" in value:
            raise ValueError(
                f"{where}: {self.name} is one line of text; got a line break in {value!r}"
            )
        try:
            value.encode("utf8")
        except UnicodeEncodeError:
            raise ValueError(
                f"{where}: {self.name} must be valid Unicode text (no lone surrogates); "
                f"got {value!r}"
            ) from None
        return value


def _slider_value(v: object, where: str) -> int | float:
    """A slider's value as a Python int or float (numpy scalars and 0-d tensors too)."""
    x = _scalar(v)
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise ExplorerError(f"{where}: every one of values must be a finite number; got {v!r}")
    return x


def _check_name(name: object, what: str) -> None:
    """A Python identifier that does not start with ``__``: the name is a keyword of the
    update function and a key of the page's plain objects, where ``__proto__`` is special."""
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("__"):
        raise ExplorerError(
            f"{what}: name must be a Python identifier string not starting with '__'; got {name!r}"
        )


# ----------------------------------------------------------------------------- presets


@record(
    label=TEXT,
    notice=TEXT,
    values=checked_later("control name -> value, not empty (each on its control's grid)"),
)
@dataclass(frozen=True)
class Preset:
    """One of an explorer's "things to try": a button in the explorer's frame that sets
    some controls at once, and the one line that says what to notice there.

    The explorer's :class:`Declaration` checks that every name in ``values`` is one of its
    controls and every value is on that control's grid (or, for a :class:`Text` field, a
    text it can hold).

    Args:
        label: the button's text, short (e.g. ``"T = 0.05: a hard lookup"``).
        notice: one sentence shown (and read out by screen readers) when the preset is
            picked, saying what to look at (e.g. ``"Notice: every row is one strong cell."``).
        values: control name -> value (a slider's grid value, a choice's option, a text
            field's text); controls not named keep their current position.
    """

    label: str
    notice: str
    values: dict

    def __post_init__(self) -> None:
        where = f"Preset {self.label!r}"
        label = _declared(_validate.as_str, self.label, "label", "Preset")
        notice = _declared(_validate.as_str, self.notice, "notice", where)
        if not label.strip():
            raise ExplorerError(f"Preset: label must be a non-empty string; got {self.label!r}")
        if not notice.strip() or "\n" in notice:
            raise ExplorerError(
                f"{where}: notice must be one non-empty line of text; got {self.notice!r}"
            )
        if not isinstance(self.values, dict) or not self.values:
            raise ExplorerError(
                f"{where}: values must be a non-empty dict control name -> value; "
                f"got {self.values!r}"
            )
        for k in self.values:
            if not isinstance(k, str):
                raise ExplorerError(f"{where}: control names must be strings; got {k!r}")
        object.__setattr__(self, "values", dict(self.values))
