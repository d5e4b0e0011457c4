"""The `vfix` command line: parses arguments and wires the sub-commands, nothing more.

Each sub-command lives in `vfix/commands/<name>.py` and is listed in COMMANDS below; only the
module of the command being run is imported (see vfix/commands/lazy.py). Usage errors and
operational errors (`VfixError`) become one line on stderr and exit code 2; tracebacks only
with VFIX_DEBUG=1.
"""

from __future__ import annotations

import os
import sys

import typer
from typer._click import exceptions as click_errors  # typer >= 0.29 carries its own click

from vfix.commands.lazy import LazyCommand, LazyGroup
from vfix.errors import VfixError
from vfix.vocabulary import ExitCode

# Listed in this order by `vfix --help`; the help lines are the commands' own first lines.
COMMANDS = {
    "probe": LazyCommand("vfix.commands.probe", "probe", "Probe this machine: GPUs, "
                         "driver/CUDA/NCCL versions, topology, system, processes."),
    "gather": LazyCommand("vfix.commands.gather", "gather_command", "Collect GPU, version and "
                          "system facts from every host (read-only)."),
    "audit": LazyCommand("vfix.commands.audit", "audit_command", "Audit the fleet: findings "
                         "with evidence, drift from each group's majority, verdicts."),
    "fix": LazyCommand("vfix.commands.fix", "fix_command", "Fix the findings of an audit: "
                       "Ansible check + diff by default, --apply to change nodes."),
    "diagnose": LazyCommand("vfix.commands.diagnose", "diagnose", "Say what broke in failure "
                            "logs: layer, root cause, evidence lines and the fix."),
    "preflight": LazyCommand("vfix.commands.preflight", "preflight", "Say which layer a vLLM "
                             "deployment will break in, and the command that should work."),
    "diff": LazyCommand("vfix.commands.diff", "diff_command", "Per-host changes between two "
                        "runs: facts, findings appeared/resolved, verdicts."),
    "onboard": LazyCommand("vfix.commands.onboard", "onboard_command", "Onboard nodes: "
                           "evidence, fixes, proof; PASS / WARN / FAIL per node."),
    "validate": LazyCommand("vfix.commands.validate", "app", "Prove GPUs, links and vLLM work: "
                            "nccl-tests, all-reduce, vLLM smoke."),
}


class VfixGroup(LazyGroup):
    lazy_commands = COMMANDS


def _root() -> None:
    # No global options; a callback makes typer build the (lazy) group.
    return None


app = typer.Typer(
    name="vfix",
    help="Fleet remediation for multi-GPU and multi-node vLLM deployments.",
    cls=VfixGroup,
    callback=_root,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def main(argv: list[str] | None = None) -> None:
    try:
        # Not standalone: usage errors come here to be told in one line, and typer.Exit's
        # code comes back as the return value.
        code = app(args=argv, prog_name="vfix", standalone_mode=False)
        sys.exit(code if isinstance(code, int) else ExitCode.CLEAN)
    except click_errors.NoArgsIsHelpError as error:
        error.show()  # `vfix` or a group without a sub-command: the help, as click shows it
        sys.exit(ExitCode.OPERATIONAL_ERROR)
    except click_errors.UsageError as error:
        command = error.ctx.command_path if error.ctx else "vfix"
        print(f"vfix: error: {error.format_message()} (see '{command} --help')", file=sys.stderr)
        sys.exit(ExitCode.OPERATIONAL_ERROR)
    except click_errors.ClickException as error:  # e.g. a file argument that cannot be opened
        print(f"vfix: error: {error.format_message()}", file=sys.stderr)
        sys.exit(ExitCode.OPERATIONAL_ERROR)
    except typer.Abort:
        print("vfix: interrupted", file=sys.stderr)
        sys.exit(ExitCode.OPERATIONAL_ERROR)
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
