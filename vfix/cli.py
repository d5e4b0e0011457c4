"""The `vfix` command line: parses arguments and wires the sub-commands, nothing more.

Each sub-command lives in `vfix/commands/<name>.py` and is registered below. Operational
errors (`VfixError`) become one line on stderr and exit code 2; tracebacks only with VFIX_DEBUG=1.
"""

from __future__ import annotations

import os
import sys

import typer

from vfix.errors import VfixError
from vfix.vocabulary import ExitCode

app = typer.Typer(
    name="vfix",
    help="Fleet remediation for multi-GPU and multi-node vLLM deployments.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _register() -> None:
    """Attach every sub-command; each module in vfix/commands/ owns its options."""
    # Imported here, not at module top, so `import vfix.cli` stays cheap.
    from vfix.commands import (
        audit,
        diagnose,
        diff,
        fix,
        gather,
        onboard,
        preflight,
        probe,
        validate,
    )

    app.command("probe")(probe.probe)
    app.command("gather")(gather.gather_command)
    app.command("audit")(audit.audit_command)
    app.command("fix")(fix.fix_command)
    app.add_typer(validate.app, name="validate")
    app.command("diagnose")(diagnose.diagnose)
    app.command("preflight")(preflight.preflight)
    app.command("diff")(diff.diff_command)
    app.command("onboard")(onboard.onboard_command)


def main(argv: list[str] | None = None) -> None:
    try:
        _register()
        app(args=argv, standalone_mode=True)
    except VfixError as error:
        print(f"vfix: error: {error.reason}", file=sys.stderr)
        sys.exit(ExitCode.OPERATIONAL_ERROR)
    except KeyboardInterrupt:
        print("vfix: interrupted", file=sys.stderr)
        sys.exit(ExitCode.OPERATIONAL_ERROR)
    except Exception as error:  # the contract is one line, never a traceback
        if os.environ.get("VFIX_DEBUG"):
            raise
        reason = f"{type(error).__name__}: {error}".splitlines()[0]
        print(f"vfix: internal error: {reason} (VFIX_DEBUG=1 shows the traceback)", file=sys.stderr)
        sys.exit(ExitCode.OPERATIONAL_ERROR)
