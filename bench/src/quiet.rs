//! Whether the machine's cores were free while a scenario measured: a speed figure taken while
//! other programs shared the cores says little about the code, so every scenario records what
//! else ran, before it starts and while it ran, and the report judges targets only from quiet
//! runs.
//!
//! Before a scenario starts, [`Watch::start`] samples for [`SAMPLE`] how much CPU the other
//! processes use (`/proc/stat`'s user, nice and system time less this process's and the kernel's
//! own threads', over the same interval) and which processes use it (each `/proc/PID/stat`), and
//! reads the load average; it warns on standard error when the others use more than
//! [`QUIET_CORES`]. [`Watch::finish`] measures the same over the whole run: the machine's CPU time
//! less this process's and its reaped children's (a scenario's server is one of them) and the
//! kernel threads'. A run is quiet when the others stayed under [`QUIET_CORES`] both before and
//! during it.
//!
//! The load average is recorded but does not decide: it follows the last minutes, so a scenario
//! that starts right after another one (as the report's do) would find its predecessor's load.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// How long the other processes are sampled before a scenario starts.
pub const SAMPLE: Duration = Duration::from_secs(1);
/// The CPU the other processes may use, in cores, for a run to count as quiet.
pub const QUIET_CORES: f64 = 0.15;
/// A process is named among the busy ones from this much CPU, in cores.
const BUSY_PROCESS_CORES: f64 = 0.05;
/// `PF_KTHREAD` in `/proc/PID/stat`'s flags: the kernel's own threads (writeback, for one, works
/// for the scenario's own I/O and is not another program).
const PF_KTHREAD: u64 = 0x0020_0000;

/// What else used the cores, before and during a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Load {
    /// The 1, 5 and 15 minutes' load averages before the run.
    pub load_average: [f64; 3],
    pub cores: usize,
    /// The cores the other processes used in the sample before the run.
    pub other_cores_before: f64,
    /// The processes that used the most of it.
    pub busy_before: Vec<BusyProcess>,
    /// The cores the other processes used on average while the run ran (`None` for a run that
    /// has not finished).
    pub other_cores_during: Option<f64>,
    /// The cores the hypervisor gave to other machines while the run ran (steal time).
    pub steal_cores_during: Option<f64>,
    pub quiet: bool,
}

/// A process that used the cores before a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BusyProcess {
    pub pid: u32,
    pub name: String,
    pub cores: f64,
}

impl Load {
    /// The most the other programs used, before or during the run, in cores.
    pub fn most_other_cores(&self) -> f64 {
        self.other_cores_before.max(self.other_cores_during.unwrap_or(0.0))
    }

    /// Why the run is not quiet, for a reader: e.g. "other processes used 0.62 of 2 cores while
    /// it ran (cargo 0.5)".
    pub fn why_busy(&self) -> Option<String> {
        if self.quiet {
            return None;
        }
        let (when, used) = match self.other_cores_during {
            Some(during) if during > QUIET_CORES => ("while it ran", during),
            _ => ("before it started", self.other_cores_before),
        };
        let names: Vec<String> = self.busy_before.iter().take(3).map(|busy| format!("{} {:.2}", busy.name, busy.cores)).collect();
        let names = if names.is_empty() { String::new() } else { format!(" ({})", names.join(", ")) };
        Some(format!("other processes used {used:.2} of {} cores {when}{names}", self.cores))
    }
}

/// The machine's CPU counters at one instant, in clock ticks.
#[derive(Debug, Clone, Default)]
struct Counters {
    /// Every CPU's time in all states: cores × ticks per second × seconds between two samples.
    all: u64,
    /// User, nice and system time: what processes (and the kernel's threads) ran.
    busy: u64,
    steal: u64,
    /// This process's time and its reaped children's.
    own: u64,
    /// Each kernel thread's time, by pid.
    kernel_threads: HashMap<u32, u64>,
}

impl Counters {
    fn read() -> Counters {
        let mut counters = Counters::default();
        if let Some((all, busy, steal)) = std::fs::read_to_string("/proc/stat").ok().as_deref().and_then(machine_times) {
            (counters.all, counters.busy, counters.steal) = (all, busy, steal);
        }
        counters.own = std::fs::read_to_string("/proc/self/stat").ok().as_deref().and_then(parse_stat).map_or(0, |stat| stat.ticks_with_children);
        for (pid, stat) in processes() {
            if stat.flags & PF_KTHREAD != 0 {
                counters.kernel_threads.insert(pid, stat.ticks);
            }
        }
        counters
    }

    /// The cores other processes used between `self` and `later`, and the steal.
    fn others_until(&self, later: &Counters, cores: usize) -> (f64, f64) {
        let all = later.all.saturating_sub(self.all);
        if all == 0 {
            return (0.0, 0.0);
        }
        let kernel: u64 =
            later.kernel_threads.iter().filter_map(|(pid, ticks)| self.kernel_threads.get(pid).map(|before| ticks.saturating_sub(*before))).sum();
        let others = later.busy.saturating_sub(self.busy).saturating_sub(later.own.saturating_sub(self.own)).saturating_sub(kernel);
        let per_core = |ticks: u64| round2(ticks as f64 / all as f64 * cores as f64);
        (per_core(others), per_core(later.steal.saturating_sub(self.steal)))
    }
}

/// A scenario's record of the machine's load: started before it, finished after it.
pub struct Watch {
    before: Counters,
    load: Load,
}

impl Watch {
    /// Samples the other processes for [`SAMPLE`] and reads the load average; warns on standard
    /// error when the cores are not free.
    pub fn start(scenario: &str) -> Watch {
        let cores = cores();
        let (other_cores_before, busy_before) = sample_others(SAMPLE, cores);
        let load_average = std::fs::read_to_string("/proc/loadavg").ok().as_deref().and_then(load_average).unwrap_or_default();
        let load = Load {
            load_average,
            cores,
            other_cores_before,
            busy_before,
            other_cores_during: None,
            steal_cores_during: None,
            quiet: other_cores_before <= QUIET_CORES,
        };
        if let Some(why) = load.why_busy() {
            eprintln!(
                "{scenario}: WARNING: the cores are not free: {why}; load average {:.2}. Figures of this run are marked busy.",
                load_average[0]
            );
        }
        Watch { before: Counters::read(), load }
    }

    /// The load before and during the run; warns when others used the cores meanwhile.
    pub fn finish(self, scenario: &str) -> Load {
        let cores = self.load.cores;
        let (others, steal) = self.before.others_until(&Counters::read(), cores);
        let mut load = self.load;
        let was_quiet = load.quiet;
        load.other_cores_during = Some(others);
        load.steal_cores_during = Some(steal);
        load.quiet = was_quiet && others <= QUIET_CORES;
        if was_quiet && !load.quiet {
            eprintln!("{scenario}: WARNING: other processes used {others:.2} of {cores} cores while it ran. Figures of this run are marked busy.");
        }
        load
    }
}

/// The cores other processes used over `span` (the kernel's threads and this process left out),
/// and the busiest of them.
pub fn sample_others(span: Duration, cores: usize) -> (f64, Vec<BusyProcess>) {
    let before = Counters::read();
    let processes_before: HashMap<u32, ProcessStat> = processes().collect();
    let started = Instant::now();
    std::thread::sleep(span);
    let after = Counters::read();
    let elapsed = started.elapsed().as_secs_f64();
    let (others, _) = before.others_until(&after, cores);
    let own = std::process::id();
    let ticks_per_second = ticks_per_second(&before, &after, elapsed, cores);
    let mut busy: Vec<BusyProcess> = processes()
        .filter(|(pid, stat)| *pid != own && stat.flags & PF_KTHREAD == 0)
        .filter_map(|(pid, stat)| {
            let earlier = processes_before.get(&pid).map_or(0, |earlier| earlier.ticks);
            let used = stat.ticks.saturating_sub(earlier) as f64 / ticks_per_second / elapsed;
            (used >= BUSY_PROCESS_CORES).then(|| BusyProcess { pid, name: stat.name, cores: round2(used) })
        })
        .collect();
    busy.sort_by(|a, b| b.cores.total_cmp(&a.cores));
    busy.truncate(8);
    (others, busy)
}

/// Waits up to `limit` for the other processes to leave the cores free (sampling every
/// [`SAMPLE`]); answers the cores they used in the last sample.
pub fn wait_for_quiet(limit: Duration) -> f64 {
    let cores = cores();
    let started = Instant::now();
    loop {
        let (others, _) = sample_others(SAMPLE, cores);
        if others <= QUIET_CORES || started.elapsed() >= limit {
            return others;
        }
    }
}

/// Clock ticks per second, from the machine's counters over `elapsed` seconds (100 on Linux,
/// measured so that no C call is needed).
fn ticks_per_second(before: &Counters, after: &Counters, elapsed: f64, cores: usize) -> f64 {
    let measured = after.all.saturating_sub(before.all) as f64 / elapsed / cores as f64;
    if measured.is_finite() && measured > 0.0 {
        measured
    } else {
        100.0
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// One process's `/proc/PID/stat` fields that matter here.
#[derive(Debug, Clone, PartialEq)]
struct ProcessStat {
    name: String,
    flags: u64,
    /// utime + stime.
    ticks: u64,
    /// utime + stime + cutime + cstime.
    ticks_with_children: u64,
}

fn processes() -> impl Iterator<Item = (u32, ProcessStat)> {
    std::fs::read_dir("/proc").into_iter().flatten().filter_map(|entry| {
        let pid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)?;
        Some((pid, stat))
    })
}

/// `utime + stime` of a `/proc/PID/stat` line, in clock ticks.
pub fn cpu_ticks_of_stat(line: &str) -> Option<u64> {
    parse_stat(line).map(|stat| stat.ticks)
}

/// A `/proc/PID/stat` line: `pid (name) state ppid ...`; the name may hold spaces and
/// parentheses, so the fields are counted from its last `)`.
fn parse_stat(line: &str) -> Option<ProcessStat> {
    let open = line.find('(')?;
    let close = line.rfind(')')?;
    let name = line.get(open + 1..close)?.to_owned();
    // After the name: state(3) ppid(4) pgrp session tty_nr tpgid flags(9) minflt cminflt majflt
    // cmajflt utime(14) stime(15) cutime(16) cstime(17).
    let fields: Vec<&str> = line.get(close + 1..)?.split_whitespace().collect();
    let field = |number: usize| -> Option<u64> { fields.get(number - 3)?.parse().ok() };
    let ticks = field(14)? + field(15)?;
    Some(ProcessStat { name, flags: field(9)?, ticks, ticks_with_children: ticks + field(16)? + field(17)? })
}

/// `/proc/stat`'s first line: every state's ticks, the busy ones (user, nice, system) and steal.
fn machine_times(stat: &str) -> Option<(u64, u64, u64)> {
    let line = stat.lines().find(|line| line.starts_with("cpu "))?;
    let values: Vec<u64> = line.split_whitespace().skip(1).map(|value| value.parse().ok()).collect::<Option<_>>()?;
    let at = |index: usize| values.get(index).copied().unwrap_or(0);
    // user nice system idle iowait irq softirq steal guest guest_nice; guest time is counted in
    // user already.
    let all = (0..8).map(at).sum();
    Some((all, at(0) + at(1) + at(2), at(7)))
}

fn load_average(loadavg: &str) -> Option<[f64; 3]> {
    let mut fields = loadavg.split_whitespace().map(|field| field.parse::<f64>().ok());
    Some([fields.next()??, fields.next()??, fields.next()??])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_stat_is_read_past_a_name_with_spaces_and_parentheses() {
        let line = "4242 (tokio (worker) 1) S 1 4242 4242 0 -1 4194560 500 0 0 0 150 25 7 3 20 0 9 0 100 1000 50";
        let stat = parse_stat(line).expect("a stat line");
        assert_eq!(stat.name, "tokio (worker) 1");
        assert_eq!((stat.flags, stat.ticks, stat.ticks_with_children), (4_194_560, 175, 185));
        let kernel = "17 (kworker/0:1-events) I 2 0 0 0 -1 69238880 0 0 0 0 0 12 0 0 20 0 1 0 5 0 0";
        assert_ne!(parse_stat(kernel).expect("a kernel thread").flags & PF_KTHREAD, 0);
        assert_eq!(parse_stat("17 no name"), None);
    }

    #[test]
    fn machine_times_count_user_nice_and_system_as_busy() {
        let stat = "cpu  100 5 50 1000 20 3 7 11 0 0\ncpu0 50 2 25 500 10 1 3 5 0 0\n";
        assert_eq!(machine_times(stat), Some((1196, 155, 11)));
        assert_eq!(machine_times("intr 1 2 3\n"), None);
        assert_eq!(load_average("0.12 1.07 1.57 1/234 5678\n"), Some([0.12, 1.07, 1.57]));
    }

    #[test]
    fn the_others_are_the_machine_less_this_process_and_the_kernel_threads() {
        let before = Counters { all: 1_000, busy: 300, steal: 0, own: 100, kernel_threads: HashMap::from([(17, 10)]) };
        // 2 cores over 1 s at 100 ticks a second: 200 ticks; 150 busy, of which 60 this
        // process and 10 a kernel thread: the others used 80 ticks, 0.8 of a core.
        let after = Counters { all: 1_200, busy: 450, steal: 20, own: 160, kernel_threads: HashMap::from([(17, 20), (18, 99)]) };
        assert_eq!(before.others_until(&after, 2), (0.8, 0.2));
        assert_eq!(before.others_until(&before, 2), (0.0, 0.0));
    }

    #[test]
    fn a_busy_run_says_when_and_who() {
        let mut load = Load {
            load_average: [2.0, 1.0, 0.5],
            cores: 2,
            other_cores_before: 0.9,
            busy_before: vec![BusyProcess { pid: 9, name: "rustc".into(), cores: 0.85 }],
            other_cores_during: Some(0.05),
            steal_cores_during: Some(0.0),
            quiet: false,
        };
        assert_eq!(load.why_busy().as_deref(), Some("other processes used 0.90 of 2 cores before it started (rustc 0.85)"));
        load.other_cores_during = Some(0.5);
        assert_eq!(load.why_busy().as_deref(), Some("other processes used 0.50 of 2 cores while it ran (rustc 0.85)"));
        load.quiet = true;
        assert_eq!(load.why_busy(), None);
    }

    #[test]
    fn a_sample_of_this_machine_names_a_spinning_process() {
        // A child process that spins is another program: the sample must see it.
        let mut child = std::process::Command::new("sh").arg("-c").arg("while :; do :; done").spawn().expect("sh");
        std::thread::sleep(Duration::from_millis(200));
        let (others, busy) = sample_others(Duration::from_millis(700), cores());
        let _ = child.kill();
        let _ = child.wait();
        assert!(others >= 0.5, "a spinning shell uses most of a core: {others}");
        assert!(busy.iter().any(|process| process.pid == child.id()), "{busy:?}");
    }
}
