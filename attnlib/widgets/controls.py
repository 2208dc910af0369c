"""What the reader controls: :class:`Slider`, :class:`Choice` and :class:`Text` (see
:mod:`attnlib.widgets`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


class ExplorerError(ValueError):
    """A declaration is invalid or an update function returned unusable data."""


# ----------------------------------------------------------------------------- parameters


def _format_number(v: float) -> str:
    """Short label for a slider value, e.g. 0.05, 1.5, 20, 512."""
    if float(v).is_integer() and abs(v) < 1e6:
        return str(int(v))
    return f"{v:.3g}"


@dataclass(frozen=True)
class Slider:
    """A numeric parameter: a slider over an explicit list of values.

    Args:
        name: keyword passed to the update function.
        values: the values the slider can take, in slider order (non-empty, finite,
            distinct). Integers stay ints, so ``update`` may use them as lengths.
        label: text shown before the slider (default: ``name``).
        default: initial value (must be one of ``values``; default: the middle one).
        value_labels: optional text shown for each value (default: a short number).
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
        vals = list(self.values) if self.values is not None else []
        if not vals:
            raise ExplorerError(
                f"Slider {self.name!r}: values must be a non-empty list; got {self.values!r}"
            )
        clean = []
        for v in vals:
            if hasattr(v, "item"):
                v = v.item()
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ExplorerError(
                    f"Slider {self.name!r}: every value must be a finite number; got {v!r}"
                )
            clean.append(v)
        if len(set(clean)) != len(clean):
            raise ExplorerError(f"Slider {self.name!r}: values must be distinct; got {clean!r}")
        object.__setattr__(self, "values", tuple(clean))
        if self.value_labels is not None and len(self.value_labels) != len(clean):
            raise ExplorerError(
                f"Slider {self.name!r}: value_labels has {len(self.value_labels)} "
                f"entries, expected one per value ({len(clean)})"
            )
        if self.default is not None and self.default not in clean:
            raise ExplorerError(
                f"Slider {self.name!r}: default {self.default!r} is not one of the values"
            )

    @property
    def options(self) -> tuple:
        return self.values

    def labels(self) -> list[str]:
        if self.value_labels is not None:
            return [str(s) for s in self.value_labels]
        return [_format_number(v) for v in self.values]

    def default_index(self) -> int:
        if self.default is None:
            return (len(self.values) - 1) // 2
        return self.values.index(self.default)


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
        opts = list(self.options) if self.options is not None else []
        if not opts:
            raise ExplorerError(
                f"Choice {self.name!r}: options must be a non-empty list; got {self.options!r}"
            )
        if not all(isinstance(o, str) for o in opts):
            raise ExplorerError(f"Choice {self.name!r}: options must be strings; got {opts!r}")
        if len(set(opts)) != len(opts):
            raise ExplorerError(f"Choice {self.name!r}: options must be distinct; got {opts!r}")
        object.__setattr__(self, "options", tuple(opts))
        if self.option_labels is not None and len(self.option_labels) != len(opts):
            raise ExplorerError(
                f"Choice {self.name!r}: option_labels has {len(self.option_labels)} "
                f"entries, expected one per option ({len(opts)})"
            )
        if self.default is not None and self.default not in opts:
            raise ExplorerError(
                f"Choice {self.name!r}: default {self.default!r} is not one of {opts!r}"
            )

    @property
    def values(self) -> tuple:
        return self.options

    def labels(self) -> list[str]:
        if self.option_labels is not None:
            return [str(s) for s in self.option_labels]
        return list(self.options)

    def default_index(self) -> int:
        return 0 if self.default is None else self.options.index(self.default)


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
        if not isinstance(self.default, str):
            raise ExplorerError(
                f"Text {self.name!r}: default must be a string; got {self.default!r}"
            )
        try:
            self.check(self.default, f"Text {self.name!r}: default", limit=False)
        except (TypeError, ValueError) as exc:
            raise ExplorerError(str(exc)) from None
        sugg = tuple(self.suggestions)
        if not all(isinstance(t, str) for t in sugg):
            raise ExplorerError(f"Text {self.name!r}: suggestions must be strings; got {sugg!r}")
        for t in sugg:
            try:
                self.check(t, f"Text {self.name!r}: suggestion {t!r}", limit=False)
            except (TypeError, ValueError) as exc:
                raise ExplorerError(str(exc)) from None
        object.__setattr__(self, "suggestions", sugg)
        if (
            not isinstance(self.max_length, int)
            or self.max_length < 1
            or len(self.default) > self.max_length
        ):
            raise ExplorerError(
                f"Text {self.name!r}: max_length must be a positive int holding the default "
                f"({len(self.default)} characters); got {self.max_length!r}"
            )

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


def _check_name(name: object, what: str) -> None:
    if not isinstance(name, str) or not name.isidentifier():
        raise ExplorerError(f"{what}: name must be a Python identifier string; got {name!r}")
