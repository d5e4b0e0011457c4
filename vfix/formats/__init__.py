"""Report formats: an enum of names mapped to one formatter class each."""

from __future__ import annotations

from enum import StrEnum

from vfix.audit.engine import AuditResult
from vfix.formats.base import Formatter
from vfix.formats.html import HtmlFormatter
from vfix.formats.json_format import JsonFormatter
from vfix.formats.junit import JunitFormatter
from vfix.formats.markdown import MarkdownFormatter
from vfix.formats.prometheus import PrometheusFormatter
from vfix.formats.table import TableFormatter


class Format(StrEnum):
    TABLE = "table"
    JSON = "json"
    MARKDOWN = "markdown"
    JUNIT = "junit"
    PROMETHEUS = "prometheus"
    HTML = "html"


FORMATTERS: dict[Format, type[Formatter]] = {
    Format.TABLE: TableFormatter,
    Format.JSON: JsonFormatter,
    Format.MARKDOWN: MarkdownFormatter,
    Format.JUNIT: JunitFormatter,
    Format.PROMETHEUS: PrometheusFormatter,
    Format.HTML: HtmlFormatter,
}


def render(result: AuditResult, fmt: Format, color: bool = False) -> str:
    if fmt is Format.TABLE:
        return TableFormatter(color=color).render(result)
    return FORMATTERS[fmt]().render(result)


__all__ = ["FORMATTERS", "Format", "Formatter", "render"]
