//! Runs a matrix: each run is a child process (`tsoser check FILE --json --stats`) with
//! the decider's own timeout, a hard kill [`GRACE`] after it, and an address-space limit; the
//! kernel's accounting (`wait4`) gives its peak memory. A killed run is recorded as
//! *unknown* with its reason. Several runs go at once when asked; each gets an equal
//! share of the cores for its own threads. An external decider's command runs in a
//! process group of its own, killed whole at the hard kill and when its first process
//! ends (nothing it started outlives its run); its verdict is a line of its output,
//! and anything else — no such line, both, a crash — is an *error* saying why.

use super::config::External;
use super::matrix::{Run, Source};
use super::records::{Record, Records, RECORD_SCHEMA};
use serde_json::Value;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Limits of every run.
#[derive(Clone, Debug)]
pub struct Limits {
    pub timeout: f64,
    pub memory_mib: u64,
    /// Runs at a time.
    pub parallel: usize,
    /// Worker threads each run may use (`--jobs` of `check`).
    pub jobs_per_run: usize,
    /// The hard kill comes this long after the decider's own timeout.
    pub grace: Duration,
}

/// The default [`Limits::grace`].
pub const GRACE: Duration = Duration::from_secs(5);

/// A run's trace on disk, with its size as the parent read it (a run killed before
/// `check` reports keeps these).
#[derive(Clone, Debug)]
pub struct Prepared {
    pub file: PathBuf,
    pub events: u64,
    pub threads: u64,
}

/// Makes (or finds) a run's trace: generated ones go to `dir/<key>.yaml`, written once
/// (through a temporary file of this process, renamed into place, so shards sharing
/// `dir` never see a partial file); a directory family's file is read where it is.
pub fn prepare(dir: &Path, run: &Run) -> Result<Prepared, crate::FileError> {
    let trace = run.source.trace()?;
    let (events, threads) = (trace.len() as u64, trace.threads.len() as u64);
    if let Source::File(p) = &run.source {
        return Ok(Prepared {
            file: p.clone(),
            events,
            threads,
        });
    }
    let name = crate::text::file_stem(run.key.chars(), &['=', '.', '-']);
    let path = dir.join(format!("{name}.yaml"));
    if !path.exists() {
        let write = |p: &Path| {
            let file = p.display().to_string();
            move |e| crate::FileError {
                file,
                error: crate::Error::Write(e),
            }
        };
        std::fs::create_dir_all(dir).map_err(write(dir))?;
        let tmp = path.with_extension(format!("yaml.{}.tmp", std::process::id()));
        std::fs::write(
            &tmp,
            crate::trace::yaml::write(&trace, crate::trace::yaml::Form::Compact),
        )
        .map_err(write(&tmp))?;
        std::fs::rename(&tmp, &path).map_err(write(&path))?;
    }
    Ok(Prepared {
        file: path,
        events,
        threads,
    })
}

/// The `check` flags of a decider.
fn decider_args(decider: &str) -> Vec<&str> {
    match decider.split_once('/') {
        Some(("sat", solver)) => vec!["--algo", "sat", "--solver", solver],
        _ => vec!["--algo", decider],
    }
}

/// Runs one run to its record (never fails: what goes wrong is the record's reason).
pub fn run_one(program: &Path, trace: &Prepared, run: &Run, limits: &Limits) -> Record {
    let (mut cmd, jobs) = match &run.external {
        Some(x) => (external_command(x, program, trace, run, limits), 1),
        None => command(program, trace, run, limits),
    };
    let mut record = Record {
        schema: RECORD_SCHEMA.into(),
        id: run.id.clone(),
        family: run.family.into(),
        params: run.params.clone(),
        decider: run.decider.clone(),
        semantics: run.semantics.clone(),
        verdict: "error".into(),
        reason: None,
        exit: None,
        seconds: 0.0,
        decide_seconds: None,
        peak_mib: None,
        jobs,
        events: Some(trace.events),
        threads: Some(trace.threads),
        counts: Value::Null,
    };
    let start = Instant::now();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            let what = cmd.get_program().to_string_lossy().into_owned();
            record.reason = Some(format!("cannot start {what}: {e}"));
            return record;
        }
    };
    let (out, err) = (
        child.stdout.take().expect("piped"),
        child.stderr.take().expect("piped"),
    );
    // Both pipes drained on threads of their own, so a child filling one never blocks.
    fn drain(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = r.read_to_string(&mut s);
            s
        })
    }
    let (reader, err_reader) = (drain(out), drain(err));
    let deadline = Duration::from_secs_f64(limits.timeout) + limits.grace;
    let group = run.external.is_some();
    let (status, usage, killed) = wait_until(&mut child, start, deadline, group);
    record.seconds = start.elapsed().as_secs_f64();
    let stdout = reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    if let Some(u) = usage {
        record.peak_mib = Some(u.ru_maxrss as f64 / 1024.0); // KiB on Linux
    }
    let Some(status) = status else {
        record.reason = Some("the run's process could not be waited for".into());
        return record;
    };
    if libc::WIFSIGNALED(status) {
        signalled(&mut record, libc::WTERMSIG(status), killed, &stderr, limits);
    } else if let Some(x) = &run.external {
        record.exit = Some(libc::WEXITSTATUS(status));
        external_verdict(&mut record, x, &stdout, &stderr);
    } else {
        exited(&mut record, libc::WEXITSTATUS(status), &stdout, &stderr);
    }
    record
}

/// The child process of one run: `tsoser check` with the run's decider and semantics,
/// its timeout, a memory budget below the hard address-space limit, killed with the
/// experiment; and the worker threads it is given.
fn command(program: &Path, trace: &Prepared, run: &Run, limits: &Limits) -> (Command, usize) {
    let mut cmd = Command::new(program);
    cmd.arg("check")
        .arg(&trace.file)
        .args(decider_args(&run.decider))
        .args([
            "--semantics",
            &run.semantics,
            "--json",
            "--stats",
            "--witness",
            "none",
        ])
        .args(["--timeout", &limits.timeout.to_string()]);
    // Only fpt and auto take worker threads (sat and brute run on one).
    let jobs = if matches!(run.decider.as_str(), "fpt" | "auto") {
        cmd.args(["--jobs", &limits.jobs_per_run.to_string()]);
        limits.jobs_per_run
    } else {
        1
    };
    // The reading keeps to the run's share of the cores too (by default it takes
    // every core but one).
    cmd.args(["--read-threads", &(jobs - 1).to_string()]);
    limit(&mut cmd, limits);
    (cmd, jobs)
}

/// The child process of an external decider's run: its command with the placeholders
/// replaced, in a process group of its own, under the limits of [`limit`].
fn external_command(
    x: &External,
    program: &Path,
    trace: &Prepared,
    run: &Run,
    limits: &Limits,
) -> Command {
    let argv = x.argv(
        &program.to_string_lossy(),
        &trace.file.to_string_lossy(),
        &run.semantics,
        limits.timeout,
    );
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]).process_group(0);
    limit(&mut cmd, limits);
    cmd
}

/// A run's environment, pipes and limits: the memory budget of tsoser's deciders, the
/// address-space limit (each process of the run has it), and death with the experiment.
fn limit(cmd: &mut Command, limits: &Limits) {
    cmd
        // The decider's own memory budget, below the hard limit, so it can say unknown.
        .env(
            "TSOSER_MAX_MEMORY_MIB",
            (limits.memory_mib / 4 * 3).to_string(),
        )
        // glibc reserves 64 MiB of address space per malloc arena (up to 8 per core),
        // which the address-space limit counts though nothing is resident.
        .env("MALLOC_ARENA_MAX", "2")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let bytes = limits.memory_mib.saturating_mul(1 << 20);
    // SAFETY: setrlimit and prctl are async-signal-safe; nothing else runs between
    // fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: bytes as libc::rlim_t,
                rlim_max: bytes as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The run ends with the experiment, however the experiment ends.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Waits for `child`, killing it once `deadline` has passed since `start`: its wait
/// status and resource usage (`None` when it could not be waited for), and whether it
/// was killed. With `group`, the child leads a process group: the whole group is
/// killed at the deadline, and when the child ends, before it is reaped (its group id
/// cannot be reused while it is a zombie), so that nothing it started survives it.
fn wait_until(
    child: &mut std::process::Child,
    start: Instant,
    deadline: Duration,
    group: bool,
) -> (Option<libc::c_int>, Option<libc::rusage>, bool) {
    let pid = child.id() as libc::pid_t;
    let mut killed = false;
    let kill = |child: &mut std::process::Child| {
        if group {
            // SAFETY: a signal to the group this child leads (not yet reaped).
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        } else {
            let _ = child.kill();
        }
    };
    loop {
        if !killed && start.elapsed() > deadline {
            kill(child);
            killed = true;
        }
        if group {
            if !ended(pid) {
                std::thread::sleep(Duration::from_millis(2));
                continue;
            }
            // The leader is a zombie: what it left running goes with it.
            kill(child);
        }
        let mut status: libc::c_int = 0;
        // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: pid is our child, not yet reaped; the pointers are to locals.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            return (Some(status), Some(usage), killed);
        }
        if r < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            kill(child);
            let _ = child.wait();
            return (None, None, killed);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Whether child `pid` has ended, leaving it to be reaped (`waitid` with `WNOWAIT`); a
/// failure to ask counts as ended, for `wait4` to report.
fn ended(pid: libc::pid_t) -> bool {
    // SAFETY: a zeroed siginfo is a valid value for waitid to fill; pid is our child.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) != 0 || info.si_pid() != 0
    }
}

/// A run ended by signal `sig`: unknown when the timeout or the memory limit killed it,
/// interrupted when the signal came from outside, otherwise an error (a crash).
fn signalled(record: &mut Record, sig: libc::c_int, killed: bool, stderr: &str, limits: &Limits) {
    record.verdict = "unknown".into();
    record.reason = Some(if killed {
        format!(
            "killed: no answer {:.1} s after the {} s timeout",
            limits.grace.as_secs_f64(),
            limits.timeout
        )
    } else if stderr.contains("memory allocation of") || sig == libc::SIGKILL {
        format!(
            "killed by signal {sig} at the {} MiB memory limit",
            limits.memory_mib
        )
    } else if matches!(sig, libc::SIGINT | libc::SIGTERM | libc::SIGHUP) {
        // Not ours: the experiment itself is being stopped; the run is done again.
        record.verdict = "interrupted".into();
        format!("stopped by signal {sig} from outside")
    } else {
        // A crash (stack overflow, abort) is a bug, not an answer.
        record.verdict = "error".into();
        format!(
            "killed by signal {sig}: {}",
            crate::text::excerpt(stderr.lines().last().unwrap_or(""))
        )
    });
}

/// A run that exited with `code`: its verdict by the exit code, its stats and reason
/// from the JSON it printed.
fn exited(record: &mut Record, code: i32, stdout: &str, stderr: &str) {
    record.exit = Some(code);
    let json: Option<Value> = serde_json::from_str(stdout).ok();
    if let Some(j) = &json {
        record.counts = j["stats"]["counts"].clone();
        record.decide_seconds = j["stats"]["seconds"]["decide"].as_f64();
        record.reason = j["reason"].as_str().map(str::to_string);
    }
    record.verdict = match code {
        0 => "serializable",
        1 => "violation",
        3 => "unknown",
        _ => "error",
    }
    .into();
    if record.verdict == "error" {
        let msg = stderr.lines().last().unwrap_or("").trim();
        record.reason = Some(format!("exit {code}: {}", crate::text::excerpt(msg)));
    }
}

/// An external decider's verdict: the one line of its output that says one (whatever
/// its exit code: clingo's are 10 and 20). Its stderr's last line is the reason of an
/// *unknown* or an *error*; output saying two things, or nothing, is an *error*.
fn external_verdict(record: &mut Record, x: &External, stdout: &str, stderr: &str) {
    let says = |l: &str| stdout.lines().any(|line| line.trim() == l.trim());
    let said: Vec<(&str, &str)> = [
        ("serializable", Some(&x.serializable)),
        ("violation", Some(&x.violation)),
        ("unknown", x.unknown.as_ref()),
    ]
    .into_iter()
    .filter_map(|(v, l)| Some((v, l?.as_str())).filter(|(_, l)| says(l)))
    .collect();
    let last = |text: &str| crate::text::excerpt(text.lines().last().unwrap_or("").trim());
    // The last line of its stderr, if any, after a colon.
    let said_why = match last(stderr) {
        l if l.is_empty() => l,
        l => format!(": {l}"),
    };
    let exit = record.exit.map_or(String::new(), |c| format!("exit {c}"));
    let (verdict, reason) = match said.as_slice() {
        [(v, _)] if *v != "unknown" => (*v, None),
        [(v, l)] => (*v, Some(format!("{exit}, printed `{l}`{said_why}"))),
        [] if record.exit != Some(0) => (
            "error",
            Some(format!("{exit} without a verdict line{said_why}")),
        ),
        [] => (
            "error",
            Some(format!(
                "no verdict line (`{}` or `{}`) in the output: `{}`",
                x.serializable,
                x.violation,
                last(stdout)
            )),
        ),
        _ => {
            let lines: Vec<String> = said.iter().map(|(_, l)| format!("`{l}`")).collect();
            (
                "error",
                Some(format!(
                    "contradictory output: printed {}",
                    lines.join(" and ")
                )),
            )
        }
    };
    record.verdict = verdict.into();
    record.reason = reason;
}

/// Runs `runs` (those not yet in `records`), `limits.parallel` at a time, appending each
/// record as it ends; `progress` is called after each with the record. The traces are
/// made (in `traces`) before any run starts, one per key, in matrix order. A run stopped
/// from outside (SIGINT, SIGTERM, SIGHUP) is not recorded: it is done again on resume.
/// Returns the number of runs recorded now.
pub fn run_all(
    program: &Path,
    runs: &[Run],
    traces: &Path,
    limits: &Limits,
    records: &mut Records,
    mut progress: impl FnMut(&Record),
) -> Result<usize, crate::FileError> {
    let todo: Vec<&Run> = runs
        .iter()
        .filter(|r| !records.done.contains(&r.id))
        .collect();
    let mut prepared: std::collections::HashMap<&str, Prepared> = Default::default();
    for r in &todo {
        if !prepared.contains_key(r.key.as_str()) {
            prepared.insert(&r.key, prepare(traces, r)?);
        }
    }
    let queue = Mutex::new(todo.iter().copied());
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<Record>();
    let mut done = 0;
    let mut first_error = None;
    std::thread::scope(|s| {
        for _ in 0..limits.parallel.max(1) {
            let (tx, queue, prepared, stop) = (tx.clone(), &queue, &prepared, &stop);
            s.spawn(move || loop {
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    break;
                }
                let next = queue.lock().unwrap_or_else(|p| p.into_inner()).next();
                let Some(run) = next else { break };
                let rec = run_one(program, &prepared[run.key.as_str()], run, limits);
                if tx.send(rec).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for rec in rx {
            if rec.verdict == "interrupted" {
                continue;
            }
            if let Err(e) = records.append(&rec) {
                first_error.get_or_insert(crate::FileError {
                    file: records.path().display().to_string(),
                    error: crate::Error::Write(e),
                });
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
                continue;
            }
            done += 1;
            progress(&rec);
        }
    });
    match first_error {
        Some(e) => Err(e),
        None => Ok(done),
    }
}
