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


def _problem_list(value: str | None) -> list[str] | None:
    return [p.strip() for p in value.split(",") if p.strip()] if value else None


@main.command("grade")
@click.argument("submission", type=click.Path(exists=True, path_type=Path))
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Directory for results.json, report.html and junit.xml (default: ./autograde-results/<name>).")
@click.option("--problems", default=None, help="Comma-separated problem ids (default: all).")
@click.option("--jobs", type=click.IntRange(1, 64), default=2, show_default=True, help="Problems graded at once.")
def grade_cmd(submission: Path, out_dir: Path | None, problems: str | None, jobs: int) -> None:
    """Grade one submission (a folder or a .zip)."""
    from .grade import GradeOptions, grade_submission
    from .record import summary_text, write_results
    from .spec import SpecError
    from reports.render import render_submission

    try:
        options = GradeOptions(problems=_problem_list(problems), jobs=jobs)
        result = grade_submission(submission, options)
    except SpecError as exc:
        raise click.UsageError(str(exc))
    out_dir = out_dir or Path("autograde-results") / result.submission
    write_results(result, out_dir)
    from .record import write_atomic

    write_atomic(out_dir / "report.html", render_submission(result))
    click.echo(summary_text(result))
    click.echo(f"wrote {out_dir / 'results.json'} and {out_dir / 'report.html'}")
    if result.faults:
        for fault in result.faults:
            click.echo(f"grader fault: {fault.splitlines()[0]}", err=True)
        sys.exit(1)
