"""The `autograde` command (CONTRACT §4). One function per verb; the work lives in the stages.

Whatever it prints that a submission could have shaped (names, messages) goes through graders.safetext.
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
from pathlib import Path

import click

from . import __version__
from .safetext import one_line, printable


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="autograde")
def main() -> None:
    """Grade miniTorch autodiff homework submissions."""


def offering_option(command):
    """`--offering ID`: which course offering to grade (problems/offerings.toml)."""
    return click.option(
        "--offering", default=None, metavar="ID",
        help="Course offering whose problems and points to use (problems/offerings.toml; "
             "default: $AUTOGRADE_OFFERING, else the file's default, spring 2026 HW2).",
    )(command)


@main.command("make-template")
@click.option("--check", is_flag=True, help="Exit 1 if student_template/ differs from what would be generated.")
@click.option("--out", "dest", type=click.Path(path_type=Path), default=None,
              help="Write somewhere else than student_template/.")
@offering_option
def make_template_cmd(check: bool, dest: Path | None, offering: str | None) -> None:
    """Generate student_template/ from reference/ (solution blocks stubbed)."""
    from .make_template import make_template
    from .spec import SpecError
    from .template import MarkerError

    try:
        diffs = make_template(dest, check=check, offering=offering)
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
        click.echo(f"wrote {dest or 'student_template'}/")


#: which tests' results report.html shows (reports.render.SHOWN), as results.json's `visibility` says
show_option = click.option(
    "--show", type=click.Choice(["visible", "after-due-date", "all"]), default="visible", show_default=True,
    help="Tests whose results report.html shows: 'visible' (the student's report before the due date: tests "
         "shown after it keep their row, not their result), 'after-due-date' (and those), 'all' (course staff).")


def _problem_list(value: str | None) -> list[str] | None:
    return [p.strip() for p in value.split(",") if p.strip()] if value else None


@main.command("grade")
@click.argument("submission", type=click.Path(exists=True, path_type=Path))
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Directory for results.json, report.html and junit.xml (default: ./autograde-results/<name>).")
@click.option("--problems", default=None, help="Comma-separated problem ids (default: all of the offering's).")
@click.option("--jobs", type=click.IntRange(1, 64), default=2, show_default=True, help="Problems graded at once.")
@show_option
@offering_option
def grade_cmd(submission: Path, out_dir: Path | None, problems: str | None, jobs: int, show: str,
              offering: str | None) -> None:
    """Grade one submission (a folder or a .zip)."""
    from reports.render import SHOWN, render_submission

    from .grade import GradeOptions, grade_submission
    from .record import summary_text, write_atomic, write_results
    from .spec import SpecError

    _check_writable(out_dir or Path("autograde-results"))  # before minutes of grading, not after
    try:
        options = GradeOptions(offering=offering, problems=_problem_list(problems), jobs=jobs, figures=SHOWN[show])
        result = grade_submission(submission, options)
    except SpecError as exc:
        raise click.UsageError(printable(str(exc))) from exc
    out_dir = out_dir or Path("autograde-results") / result.submission
    click.echo(summary_text(result))
    try:
        write_results(result, out_dir)
        write_atomic(out_dir / "report.html", render_submission(result, shown=SHOWN[show]))
    except OSError as exc:
        raise click.ClickException(f"cannot write the results to {one_line(str(out_dir))}: "
                                   f"{exc.strerror or exc} (the grade above was not saved)") from exc
    click.echo(f"wrote {one_line(str(out_dir / 'results.json'))} and {one_line(str(out_dir / 'report.html'))}")
    if result.faults:
        for fault in result.faults:
            click.echo(f"grader fault: {one_line(fault.splitlines()[0])}", err=True)
        sys.exit(1)


def _check_writable(folder: Path) -> None:
    """Fail now, with the folder named, when results cannot be written under `folder`."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".autograde-probe-"):
            pass
    except OSError as exc:
        raise click.UsageError(f"--out {one_line(str(folder))}: cannot write there ({exc.strerror or exc})") from exc


@main.command("gradescope-zip")
@click.option("--out", "out_file", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Where to write the autograder archive (e.g. autograder.zip).")
@offering_option
def gradescope_zip_cmd(out_file: Path, offering: str | None) -> None:
    """Build a Gradescope autograder (setup.sh, run_autograder, the grader and its hidden material)."""
    from .gradescope import build_zip
    from .spec import SpecError

    try:
        names = build_zip(out_file, offering=offering)
    except SpecError as exc:
        raise click.UsageError(str(exc)) from exc
    except (FileNotFoundError, OSError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    click.echo(f"wrote {out_file} ({len(names)} files): upload it as a Gradescope programming assignment's "
               "autograder (it holds the hidden tests: staff only)")


@main.command("batch")
@click.argument("submissions_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Output folder: gradebook.sqlite, grades.csv, index.html and one folder per submission.")
@click.option("--jobs", type=click.IntRange(1, 256), default=None,
              help="Submissions graded at once (default: the number of cores).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Grade on a Dask cluster, e.g. tcp://host:8786 (needs the [dask] extra; DIR must be shared).")
@click.option("--regrade", is_flag=True, help="Grade every submission again, even unchanged ones.")
@click.option("--problems", default=None, help="Comma-separated problem ids (default: all of the offering's).")
@offering_option
@click.option("--problem-jobs", type=click.IntRange(1, 16), default=1, show_default=True,
              help="Problems of one submission graded at once.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@click.option("--allow-weak-sandbox", is_flag=True,
              help="Grade even without the strong sandbox (bubblewrap + root); recorded in every result.")
@click.option("--no-similarity", is_flag=True, help="Do not screen the class for copied code after grading.")
@click.option("--similarity-base", "similarity_bases", multiple=True, type=click.Path(exists=True, path_type=Path),
              metavar="DIR_OR_FILE", help="Code given to everyone besides the template, left out of the similarity "
                                         "screening (e.g. a course starter); repeatable.")
def batch_cmd(submissions_dir: Path, out_dir: Path, jobs: int | None, scheduler: str | None, regrade: bool,
              problems: str | None, offering: str | None, problem_jobs: int, no_progress: bool,
              allow_weak_sandbox: bool, no_similarity: bool, similarity_bases: tuple) -> None:
    """Grade every submission (folder or .zip) of SUBMISSIONS_DIR; re-running resumes."""
    from .batch import BatchOptions, run_batch, summary_text
    from .spec import SpecError
    from .submissions import BatchUsageError
    from .workers import cores

    options = BatchOptions(offering=offering, problems=_problem_list(problems), jobs=jobs or cores(),
                           problem_jobs=problem_jobs, regrade=regrade, scheduler=scheduler, progress=not no_progress,
                           allow_weak_sandbox=allow_weak_sandbox, similarity=not no_similarity,
                           similarity_bases=tuple(str(b) for b in similarity_bases))
    try:
        run = run_batch(submissions_dir, out_dir, options)
    except (BatchUsageError, SpecError) as exc:
        raise click.UsageError(printable(str(exc))) from exc
    except (OSError, sqlite3.Error) as exc:  # e.g. a full disk: every committed record is intact
        click.echo(f"error: the batch stopped: {one_line(str(exc))}. Records committed so far are complete; "
                   "fix the cause (free disk space?) and run the same command again to finish.", err=True)
        sys.exit(1)
    click.echo(summary_text(run))
    sys.exit(1 if run.faults else 0)


@main.command("similarity")
@click.argument("submissions_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Output folder: similarity.csv, similarity.html and similarity.json.")
@click.option("--base", "bases", multiple=True, type=click.Path(exists=True, path_type=Path), metavar="DIR_OR_FILE",
              help="Code given to everyone, excluded like the student template (e.g. a course starter); repeatable.")
@click.option("--threshold", type=click.FloatRange(0.0, 1.0, min_open=True), default=None,
              help="Score from which a pair is flagged for attention (default 0.7).")
@offering_option
def similarity_cmd(submissions_dir: Path, out_dir: Path, bases: tuple, threshold: float | None,
                   offering: str | None) -> None:
    """Screen a class for copied code: every pair of submissions (folders or .zip) of SUBMISSIONS_DIR."""
    import dataclasses

    from reports.similarity_report import write_similarity_outputs

    from .similarity import Settings, screen_class
    from .spec import SpecError
    from .submissions import BatchUsageError

    settings = Settings() if threshold is None else dataclasses.replace(Settings(), threshold=threshold)
    try:
        result = screen_class(submissions_dir, out_dir, bases=list(bases), offering=offering, settings=settings)
    except (BatchUsageError, SpecError) as exc:
        raise click.UsageError(printable(str(exc))) from exc
    out_dir.mkdir(parents=True, exist_ok=True)
    write_similarity_outputs(result, out_dir)
    flagged = result.flagged
    click.echo(f"compared {len(result.documents)} submission(s), {len(result.pairs)} pair(s) "
               f"in {result.seconds:.1f} s; {len(flagged)} pair(s) at or above {settings.threshold:g}")
    for pair in flagged[:10]:
        click.echo(f"  {pair.score:.2f}  {one_line(pair.a)} ~ {one_line(pair.b)}  ({one_line(pair.file)})")
    if len(flagged) > 10:
        click.echo(f"  ... and {len(flagged) - 10} more (see similarity.html)")
    if result.notes:
        click.echo(f"skipped {len(result.notes)} file(s) or entries (listed in similarity.html)")
    for item in result.uncompared[:10]:
        click.echo(f"  could not be compared: {one_line(item.name)} ({one_line(item.reason)})")
    click.echo(f"wrote {one_line(str(out_dir / 'similarity.html'))} and {one_line(str(out_dir / 'similarity.csv'))}")


@main.command("report")
@click.argument("out_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@show_option
def report_cmd(out_dir: Path, show: str) -> None:
    """Re-render index.html, grades.csv, clusters.json and every report.html of a batch folder, without regrading."""
    from .batch import rerender
    from .submissions import BatchUsageError

    try:
        count = rerender(out_dir, show)
    except BatchUsageError as exc:
        raise click.UsageError(printable(str(exc))) from exc
    click.echo(f"re-rendered {count} report(s), {out_dir / 'index.html'}, {out_dir / 'grades.csv'} and "
               f"{out_dir / 'clusters.json'}")


@main.command("sandbox")
@click.option("--require", type=click.Choice(["unprivileged", "strong"]), default=None,
              help="Exit 1 unless the sandbox reaches this level (e.g. a CI step before `batch`).")
def sandbox_cmd(require: str | None) -> None:
    """Say which sandbox level grading gets here (strong, unprivileged or weak) and what it lacks."""
    from . import sandbox

    caps = sandbox.capabilities()
    click.echo(f"sandbox level: {caps.level}")
    for gap in caps.missing():
        click.echo(f"  - {gap}")
    if require and sandbox.LEVELS.index(caps.level) < sandbox.LEVELS.index(require):
        raise click.ClickException(f"the sandbox here is {caps.level}, below the required {require}")


@main.command("check-problems")
@click.argument("problems_dir", required=False, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--no-grade", is_flag=True, help="Only the static checks and the probe ids (no grading of the "
                                                "reference and the blank template).")
def check_problems_cmd(problems_dir: Path | None, no_grade: bool) -> None:
    """Validate problem folders before any grading: keys, judges, probes, misconceptions, swap symbols;
    then the reference must get full marks and the blank template 0 (graders.problemcheck)."""
    from .problemcheck import check_problems

    findings = check_problems(problems_dir, grade=not no_grade)
    for finding in findings:
        click.echo(printable(str(finding)), err=True)
    if findings:
        raise click.ClickException(f"{len(findings)} problem(s) found")
    click.echo(f"problems in {problems_dir or 'problems/'}: all checks passed")
