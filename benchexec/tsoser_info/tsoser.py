# BenchExec tool-info module for tsoser (https://github.com/sosy-lab/benchexec), named
# `tsoser_info.tsoser` with `benchexec/` on PYTHONPATH; see benchexec/README.md.
# Checked by tests/benchexec.rs with BenchExec's own `benchexec.test_tool_info`.

import re

import benchexec.result as result
from benchexec.tools.template import BaseTool2, UnsupportedFeatureException


class Tool(BaseTool2):
    """
    tsoser decides whether a concurrent trace is conflict-serializable under x86-TSO
    (Enea & Farzan, TACAS'16), exactly, with a witness that is re-checked.
    A task is one trace (YAML or RAPID's STD); the options select the decider
    (`--algo auto|fpt|sat|brute`, `--solver cadical|varisat|z3`) and the semantics.
    Result: `true` when the trace is TSO-serializable, `false(violation)` when not.
    """

    def executable(self, tool_locator):
        return tool_locator.find_executable("tsoser")

    def name(self):
        return "tsoser"

    def project_url(self):
        return "https://github.com/tsoser/tsoser"

    def version(self, executable):
        return self._version_from_tool(executable, line_prefix="tsoser")

    def cmdline(self, executable, options, task, rlimits):
        files = task.input_files_or_identifier
        if len(files) != 1:
            raise UnsupportedFeatureException("tsoser checks one trace per task")
        # The limit BenchExec enforces, given to tsoser too so that it answers
        # "unknown" (exit 3) a little before it would be killed. tsoser's timeout is
        # wall time, and fpt and auto use every core they get: a CPU-time limit over
        # c cores allows cputime / c seconds of wall time.
        limits = []
        if rlimits.walltime:
            limits.append(rlimits.walltime)
        if rlimits.cputime:
            limits.append(rlimits.cputime / (rlimits.cpu_cores or 1))
        timeout = []
        if limits and not any(o == "--timeout" or o.startswith("--timeout=") for o in options):
            timeout = ["--timeout", f"{max(1.0, min(limits) * 0.9 - 1):g}"]
        return [executable, "check", *options, *timeout, *files]

    def determine_result(self, run):
        # The verdict line: "NAME (FILE): TSO-serializable [SEMANTICS, DECIDER]: yes|NO|unknown — why",
        # or with --model sc "NAME (FILE): SC-serializable (trace read as an SC run): …".
        for line in run.output:
            m = re.search(
                r"(?:TSO|SC)-serializable (?:\[[^\]]*\]|\([^)]*\)): (yes|NO|unknown)", line
            )
            if m is None:
                continue
            if m.group(1) == "yes":
                return result.RESULT_TRUE_PROP
            if m.group(1) == "NO":
                return result.RESULT_FALSE_PROP + "(violation)"
            # Only the plain word counts as unknown for BenchExec (the reason is in the log).
            return result.RESULT_UNKNOWN
        if run.exit_code.value == 2:
            return result.RESULT_ERROR + "(input)"
        if run.exit_code.value == 4:
            return result.RESULT_ERROR + "(internal)"
        return result.RESULT_ERROR
