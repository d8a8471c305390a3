"""Tests for reading descriptions out of docstrings (Google, NumPy, Sphinx)."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import pytest

from jupyter_agents.runtime.tools.function._docstrings import (
    FuncDocumentation,
    detect_docstring_style,
    generate_func_documentation,
)


def google(city: str, days: int = 3, *extra: str, **options: Any) -> None:
    """Forecast the weather.

    Uses the public forecast service.

    Args:
        city: The city to forecast,
            for example "Paris".
        days: How many days ahead.
        *extra: Extra stations.
        **options: Provider options.

    Returns:
        Nothing useful.

    Raises:
        ValueError: Unknown city.
    """


def numpy(city: str, days: int = 3) -> None:
    """Forecast the weather.

    Parameters
    ----------
    city : str
        The city to forecast.
    days : int, optional
        How many days ahead.

    Returns
    -------
    None
    """


def sphinx(city: str, days: int = 3) -> None:
    """Forecast the weather.

    :param city: The city to forecast.
    :type city: str
    :param days: How many days ahead.
    :returns: Nothing.
    """


EXPECTED = {"city": "The city to forecast.", "days": "How many days ahead."}


def test_google_docstring() -> None:
    doc = generate_func_documentation(google, "google")

    assert doc == FuncDocumentation(
        name="google",
        description="Forecast the weather.\n\nUses the public forecast service.",
        param_descriptions={
            "city": 'The city to forecast,\nfor example "Paris".',
            "days": "How many days ahead.",
            "extra": "Extra stations.",
            "options": "Provider options.",
        },
    )


def test_numpy_docstring() -> None:
    doc = generate_func_documentation(numpy, "numpy")

    assert doc == FuncDocumentation("numpy", "Forecast the weather.", EXPECTED)


def test_sphinx_docstring() -> None:
    doc = generate_func_documentation(sphinx, "sphinx")

    assert doc == FuncDocumentation("sphinx", "Forecast the weather.", EXPECTED)


@pytest.mark.parametrize(
    ("func", "style"), [(google, "google"), (numpy, "numpy"), (sphinx, "sphinx")]
)
def test_style_is_detected(func: Any, style: str) -> None:
    assert detect_docstring_style(func.__doc__) == style
    assert generate_func_documentation(func) == generate_func_documentation(func, style)


def test_plain_prose_is_treated_as_google() -> None:
    assert detect_docstring_style("Just a sentence.") == "google"


def test_wrong_style_does_not_find_parameters() -> None:
    doc = generate_func_documentation(numpy, "sphinx")

    assert doc.param_descriptions == {}
    assert doc.description is not None and "Parameters" in doc.description


def test_no_docstring() -> None:
    def bare(x: int) -> None:
        pass

    assert generate_func_documentation(bare) == FuncDocumentation("bare", None, {})


def test_docstring_that_is_only_a_section() -> None:
    def only_args(x: int) -> None:
        """
        Args:
            x: The x.
        """

    doc = generate_func_documentation(only_args)

    assert doc.description is None
    assert doc.param_descriptions == {"x": "The x."}


def test_google_section_right_after_the_summary() -> None:
    def glued(x: int) -> None:
        """Add one.
        Args:
            x: The number.
        Returns:
            The number plus one.
        """

    doc = generate_func_documentation(glued)

    assert doc.description == "Add one."
    assert doc.param_descriptions == {"x": "The number."}


def test_keyword_arguments_section_counts() -> None:
    def kw(a: int, *, b: int) -> None:
        """Do it.

        Args:
            a: First.

        Keyword Args:
            b: Second.
        """

    assert generate_func_documentation(kw).param_descriptions == {"a": "First.", "b": "Second."}


def test_malformed_docstring_is_quiet_and_keeps_what_parses(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(x: int, y: int) -> None:
        """Broken.

        Args:
            x (int: no closing paren
            : no name

            y: The y.
        Returns:
        """

    with caplog.at_level(logging.DEBUG):
        doc = generate_func_documentation(broken)

    assert doc.description == "Broken."
    assert doc.param_descriptions == {"y": "The y."}
    assert caplog.records == []


def test_documentation_is_frozen_and_not_shared() -> None:
    first = generate_func_documentation(google)
    first.param_descriptions["city"] = "changed"

    with pytest.raises(dataclasses.FrozenInstanceError):
        first.name = "other"  # type: ignore[misc]
    assert generate_func_documentation(google).param_descriptions["city"].startswith("The city")
