"""Entry point of the ``hermes`` command."""

from __future__ import annotations

import sys

import click

from hermes import __version__
from hermes.cli.context import CliContext
from hermes.cli.scan import scan_command
from hermes.cli.sessions import sessions_group
from hermes.cli.tokens import tokens_group
from hermes.errors import HermesError
from hermes.home import Home


@click.group(
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, "-V", "--version", prog_name="hermes")
@click.option(
    "-p",
    "--profile",
    default=None,
    envvar="HERMES_PROFILE",
    help="Use the data of profile NAME ($HERMES_HOME/profiles/NAME).",
    metavar="NAME",
)
@click.pass_context
def cli(ctx: click.Context, profile: str | None) -> None:
    """Hermes: a self-hosted, self-improving AI agent.

    Data lives in $HERMES_HOME (default ~/.hermes).
    """
    ctx.obj = CliContext(home=Home.for_profile(profile))
    if ctx.invoked_subcommand is None:
        click.echo(f"Hermes {__version__} - data in {ctx.obj.home.root}")
        click.echo(ctx.get_help())


cli.add_command(sessions_group)
cli.add_command(tokens_group)
cli.add_command(scan_command)


def main() -> None:
    """Run the CLI; errors Hermes raises on purpose print as one message and a hint, exit code 1."""
    try:
        # Without standalone mode click *returns* the code of ``ctx.exit(n)`` instead of exiting.
        result = cli.main(standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except HermesError as exc:
        click.secho(f"Error: {exc.message}", fg="red", err=True)
        if exc.hint:
            click.echo(f"Hint: {exc.hint}", err=True)
        sys.exit(1)
    sys.exit(result if isinstance(result, int) else 0)


if __name__ == "__main__":
    main()
