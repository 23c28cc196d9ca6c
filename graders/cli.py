"""The `autograde` command (CONTRACT §4). One function per verb; the work lives in the stages."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from . import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="autograde")
def main() -> None:
    """Grade miniTorch autodiff homework submissions."""


@main.command("make-template")
@click.option("--check", is_flag=True, help="Exit 1 if student_template/ differs from what would be generated.")
@click.option("--out", "dest", type=click.Path(path_type=Path), default=None, help="Write somewhere else than student_template/.")
def make_template_cmd(check: bool, dest: Path | None) -> None:
    """Generate student_template/ from reference/ (solution blocks stubbed)."""
    from .make_template import make_template
    from .spec import SpecError
    from .template import MarkerError

    try:
        diffs = make_template(dest, check=check)
    except (MarkerError, SpecError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    if check:
        if diffs:
            click.echo("student_template/ is stale; run `autograde make-template`:", err=True)
            for line in diffs:
                click.echo(f"  {line}", err=True)
            sys.exit(1)
        click.echo("student_template/ is up to date")
    else:
        click.echo("wrote student_template/")
