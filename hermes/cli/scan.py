"""``hermes scan``: threat-scan text before it enters a prompt.

Exit codes: 0 when everything scanned is safe, 1 when anything is flagged (caution or dangerous),
2 for usage errors (unreadable file, bad option).
"""

from __future__ import annotations

import json
from typing import TextIO

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hermes.security.scan import ScanResult, Verdict, block_reason, rules, scan, scan_many

_STYLE = {Verdict.SAFE: "green", Verdict.CAUTION: "yellow", Verdict.DANGEROUS: "bold red"}
EXIT_SAFE = 0
EXIT_FLAGGED = 1


def _as_json(result: ScanResult, **extra: object) -> str:
    return json.dumps(
        {
            **extra,
            "verdict": result.verdict.value,
            "findings": [
                {
                    "category": f.category.value,
                    "rule_id": f.rule_id,
                    "start": f.start,
                    "end": f.end,
                    "excerpt": f.excerpt,
                }
                for f in result.findings
            ],
        },
        ensure_ascii=True,
    )


def _show(console: Console, result: ScanResult) -> None:
    style = _STYLE[result.verdict]
    count = len(result.findings)
    console.print(
        f"[{style}]{result.verdict.value}[/]"
        + (f" - {count} finding{'s' if count != 1 else ''}" if count else "")
    )
    if not count:
        return
    console.print(f"reason: {escape(block_reason(result))}")
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("category", "rule", "span", "excerpt"):
        table.add_column(column, overflow="fold")
    for f in result.findings:
        shown = block_reason(ScanResult(result.verdict, (f,)), limit=70).split(": ", 1)[1]
        table.add_row(f.category.value, f.rule_id, f"{f.start}-{f.end}", escape(shown))
    console.print(table)


def _show_rules(console: Console) -> None:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("rule", "category", "severity", "description"):
        table.add_column(column, overflow="fold")
    for r in rules():
        table.add_row(r.rule_id, r.category.value, r.severity.value, escape(r.description))
    console.print(table)


@click.command("scan")
@click.argument(
    "source",
    type=click.File("r", encoding="utf-8", errors="surrogateescape"),
    default="-",
    metavar="[FILE|-]",
)
@click.option(
    "--lines", is_flag=True, help="Scan each line on its own (one memory entry per line)."
)
@click.option(
    "--json", "as_json", is_flag=True, help="One JSON object per entry: verdict, findings."
)
@click.option("--rules", "list_rules", is_flag=True, help="List the scanner's rules and exit.")
def scan_command(source: TextIO, lines: bool, as_json: bool, list_rules: bool) -> None:
    """Scan text for prompt injection, exfiltration, persistence, secrets and hidden Unicode.

    Reads FILE (or standard input) and prints the verdict and findings. Exit code 0 means everything
    is safe, 1 that something was flagged, 2 a usage error.
    """
    console = Console(highlight=False)
    if not console.is_terminal:
        console.width = max(console.width, 120)
    if list_rules:
        _show_rules(console)
        return
    text = source.read()
    if lines:
        entries = text.splitlines()
        results = scan_many(entries)
        for number, result in enumerate(results, start=1):
            if as_json:
                click.echo(_as_json(result, line=number))
            else:
                style = _STYLE[result.verdict]
                reason = f"  {escape(block_reason(result))}" if result.flagged else ""
                console.print(f"{number:>5}  [{style}]{result.verdict.value:<9}[/]{reason}")
    else:
        results = [scan(text)]
        if as_json:
            click.echo(_as_json(results[0]))
        else:
            _show(console, results[0])
    click.get_current_context().exit(EXIT_FLAGGED if any(r.flagged for r in results) else EXIT_SAFE)
