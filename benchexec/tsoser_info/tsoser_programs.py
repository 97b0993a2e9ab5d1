# BenchExec tool-info module for tsoser's program explorer, named
# `tsoser_info.tsoser_programs` with `benchexec/` on PYTHONPATH; see benchexec/README.md.
# Checked by tests/benchexec.rs with BenchExec's own `benchexec.test_tool_info`.

import os

import benchexec.result as result
from benchexec.tools.template import UnsupportedFeatureException

from tsoser_info import tsoser


class Tool(tsoser.Tool):
    """
    tsoser explores every run of a concurrent program (C with pthreads, .prog, herd
    X86 litmus) under SC, TSO or PSO (`--model`), by source-DPOR or state memoisation
    (`--engine`), with its loops bounded (`--unroll`). For SV-COMP's unreach-call:
    `false(unreach-call)` when an assertion fails (reach_error, assert, abort) on some
    run; `true` when every run was explored with no loop cut by the bound; `unknown`
    when the bound cut a run or a budget ran out. The executable, name and version
    are the trace checker's (`tsoser_info.tsoser`).
    """

    def cmdline(self, executable, options, task, rlimits):
        files = task.input_files_or_identifier
        if len(files) != 1:
            raise UnsupportedFeatureException("tsoser explores one program per task")
        prop = task.property_file
        if prop and not os.path.basename(prop).startswith("unreach-call"):
            raise UnsupportedFeatureException("tsoser answers unreach-call only")
        limits = []
        if rlimits.walltime:
            limits.append(rlimits.walltime)
        if rlimits.cputime:
            limits.append(rlimits.cputime)
        timeout = []
        if limits and not any(o == "--timeout" or o.startswith("--timeout=") for o in options):
            timeout = ["--timeout", f"{max(1.0, min(limits) * 0.9 - 1):g}"]
        return [executable, "explore", "--no-robustness", *options, *timeout, *files]

    def determine_result(self, run):
        # The first line: "NAME (FILE) under MODEL: … [— unknown: why]"; then the
        # outcomes, "BOUND HIT: …" when the loop bound cut a run, "NONDET CUT: …" when
        # a nondet call took only part of its type's values, and either
        # "assertion FAILS: …" or "assertions: none fails".
        lines = [line for line in run.output]
        if any(line.startswith("assertion FAILS") for line in lines):
            return result.RESULT_FALSE_REACH
        if run.exit_code.value == 2:
            return result.RESULT_ERROR + "(input)"
        if run.exit_code.value == 4:
            return result.RESULT_ERROR + "(internal)"
        unknown = any(" — unknown: " in line for line in lines)
        # A loop bound or a cut nondet range: "none fails" holds up to it only.
        bound = any(line.startswith(("BOUND HIT", "NONDET CUT")) for line in lines)
        if any(line.startswith("assertions: none fails") for line in lines):
            return result.RESULT_UNKNOWN if unknown or bound else result.RESULT_TRUE_PROP
        if unknown or run.exit_code.value == 3:
            return result.RESULT_UNKNOWN
        return result.RESULT_ERROR
