//! Password hashing with argon2id (the crate's recommended parameters) on a fixed pool of
//! hashing threads.
//!
//! One argon2id hash takes 19 MiB of memory and tens of milliseconds of a core. Run on the
//! general blocking pool, a flood of requests that hash would run hundreds of hashes at once,
//! each allocating its own 19 MiB from a per-thread allocator arena that keeps the memory after
//! the flood. Here a fixed number of threads (one per core) hash, each reusing one memory block
//! it allocated once, behind a short bounded queue: the memory held for hashing is at most
//! `workers × 19 MiB` whatever arrives, and past the queue a request is refused at once with
//! 503 and `Retry-After` instead of waiting.
//!
//! The hashing threads run at a lower scheduling priority than the rest of the service
//! ([`HASHING_NICENESS`]): on an idle machine they hash at full speed, but while a flood of
//! sign-in attempts keeps them busy, the threads that answer every other request get the cores
//! first, so a login storm does not slow the rest of the service (it slows sign-ins, and past
//! the queue it is refused).
//!
//! Callers check everything cheap first (rate limits, input rules, tokens) and hash last.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{Output, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use crossbeam_channel::{Receiver, Sender, TrySendError};
use tokio::sync::oneshot;

use crate::error::{ApiError, ApiResult};

/// Jobs that may wait for a hashing thread, per thread. A hash takes a few tens of
/// milliseconds, so a full queue is well under a second of work.
pub const QUEUED_JOBS_PER_WORKER: usize = 8;

/// Stored hashes asking for more memory than this (in KiB) are not verified: ours use 19 MiB.
const MAX_MEMORY_KIB: u32 = 256 * 1024;

/// The niceness of the hashing threads (Linux: per thread; 0 is the service's own, 19 the
/// lowest). At 10 a busy hashing thread gets about a tenth of the share of a busy request thread,
/// so sign-ins still progress on a saturated machine.
pub const HASHING_NICENESS: i32 = 10;

const MSG_BUSY: &str = "The server is busy. Please try again in a moment.";
const BUSY_RETRY_AFTER_SECS: u64 = 1;

/// A handle to the hashing threads; cheap to clone. The threads end when the last handle is
/// dropped.
#[derive(Clone)]
pub struct PasswordHasher {
    jobs: Sender<Job>,
    stats: Arc<HashStats>,
    workers: usize,
}

/// What the hashing pool has done, for `/metrics` and the tests.
#[derive(Debug, Default)]
pub struct HashStats {
    /// Hashes running now.
    running: AtomicUsize,
    /// The most that ever ran at once.
    peak_running: AtomicUsize,
    /// Hashes (and verifications) finished.
    completed: AtomicU64,
    /// Requests refused because the queue was full.
    refused_busy: AtomicU64,
}

/// A point-in-time copy of [`HashStats`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashStatsSnapshot {
    pub workers: usize,
    pub running: usize,
    pub peak_running: usize,
    pub queued: usize,
    pub completed: u64,
    pub refused_busy: u64,
}

/// A unit of work for a hashing thread: it gets the thread's memory and returns the delivery
/// of its answer, which the thread makes once it has counted the work done (so a caller that
/// has its answer sees it counted).
type Job = Box<dyn FnOnce(&mut Vec<Block>) -> Delivery + Send>;
type Delivery = Box<dyn FnOnce() + Send>;

impl PasswordHasher {
    /// Starts `workers` hashing threads (at least one).
    pub fn start(workers: usize) -> PasswordHasher {
        let workers = workers.max(1);
        let (jobs, queue) = crossbeam_channel::bounded::<Job>(workers * QUEUED_JOBS_PER_WORKER);
        let stats = Arc::new(HashStats::default());
        for number in 0..workers {
            let queue = queue.clone();
            let stats = Arc::clone(&stats);
            let spawned = std::thread::Builder::new().name(format!("password-hash-{number}")).spawn(move || run_worker(&queue, &stats));
            if let Err(error) = spawned {
                tracing::error!(%error, "starting a password-hashing thread");
            }
        }
        PasswordHasher { jobs, stats, workers }
    }

    /// One thread per core.
    pub fn start_per_core() -> PasswordHasher {
        PasswordHasher::start(std::thread::available_parallelism().map(usize::from).unwrap_or(1))
    }

    /// Hashes a password into a PHC string (`$argon2id$v=19$...`).
    pub async fn hash(&self, password: String) -> ApiResult<String> {
        self.run(move |memory| hash_with(memory, &password)).await?.map_err(ApiError::internal)
    }

    /// Checks a password against a stored hash. With no account (`stored_hash` is `None`) it
    /// checks against a decoy hash, so "no such user" takes as long as "wrong password".
    pub async fn verify(&self, stored_hash: Option<String>, password: String) -> ApiResult<bool> {
        self.run(move |memory| verify_with(memory, stored_hash.as_deref(), &password)).await
    }

    pub fn stats(&self) -> HashStatsSnapshot {
        HashStatsSnapshot {
            workers: self.workers,
            running: self.stats.running.load(Ordering::Relaxed),
            peak_running: self.stats.peak_running.load(Ordering::Relaxed),
            queued: self.jobs.len(),
            completed: self.stats.completed.load(Ordering::Relaxed),
            refused_busy: self.stats.refused_busy.load(Ordering::Relaxed),
        }
    }

    /// Runs `work` on a hashing thread, or refuses at once when the queue is full.
    async fn run<T: Send + 'static>(&self, work: impl FnOnce(&mut Vec<Block>) -> T + Send + 'static) -> ApiResult<T> {
        let (reply, answer) = oneshot::channel();
        let job: Job = Box::new(move |memory| {
            let answer = work(memory);
            // The caller may have gone (its request was cancelled); nothing to do then.
            Box::new(move || drop(reply.send(answer)))
        });
        match self.jobs.try_send(job) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                let refused = self.stats.refused_busy.fetch_add(1, Ordering::Relaxed) + 1;
                // Once per thousand, so a flood does not flood the log too.
                if refused % 1000 == 1 {
                    tracing::warn!(refused_total = refused, "password hashing queue full: requests refused with 503");
                }
                return Err(busy());
            }
            Err(TrySendError::Disconnected(_)) => return Err(ApiError::internal("the password-hashing threads are gone")),
        }
        answer.await.map_err(|_| ApiError::internal("a password-hashing thread dropped its job"))
    }
}

/// 503 with `Retry-After`: the hashing queue is full.
fn busy() -> ApiError {
    let mut error = ApiError::new(crate::error::ErrorCode::Busy, MSG_BUSY);
    error.retry_after_secs = Some(BUSY_RETRY_AFTER_SECS);
    error
}

/// Gives the calling thread [`HASHING_NICENESS`]. Lowering one's own priority needs no
/// privilege; if it fails all the same, the thread hashes at the normal priority.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        let thread = rustix::thread::gettid();
        if let Err(error) = rustix::process::setpriority_process(Some(thread), HASHING_NICENESS) {
            tracing::warn!(%error, "could not lower a password-hashing thread's priority");
        }
    }
}

/// A hashing thread: takes jobs until every handle is gone, with one memory block for all of
/// them (grown only if a stored hash asks for more than ours).
fn run_worker(queue: &Receiver<Job>, stats: &HashStats) {
    lower_priority();
    let mut memory: Vec<Block> = Vec::new();
    // Made before the first sign-in needs it, so an unknown email never waits for two hashes.
    let _ = decoy_hash(&mut memory);
    while let Ok(job) = queue.recv() {
        let running = stats.running.fetch_add(1, Ordering::Relaxed) + 1;
        stats.peak_running.fetch_max(running, Ordering::Relaxed);
        let deliver = job(&mut memory);
        stats.running.fetch_sub(1, Ordering::Relaxed);
        stats.completed.fetch_add(1, Ordering::Relaxed);
        deliver();
    }
}

/// A new argon2id hash of `password` with a random salt, as a PHC string.
fn hash_with(memory: &mut Vec<Block>, password: &str) -> argon2::password_hash::Result<String> {
    let salt = SaltString::generate(&mut OsRng);
    let params = Params::default();
    let output = argon2_output(memory, Algorithm::Argon2id, Version::V0x13, &params, password, salt.as_salt())?;
    let hash = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: (&params).try_into()?,
        salt: Some(salt.as_salt()),
        hash: Some(output),
    };
    Ok(hash.to_string())
}

/// Whether `password` matches `stored_hash` (any argon2 variant and parameters up to
/// [`MAX_MEMORY_KIB`]); `None` is checked against a decoy and never matches.
fn verify_with(memory: &mut Vec<Block>, stored_hash: Option<&str>, password: &str) -> bool {
    let decoy;
    let hash_text = match stored_hash {
        Some(text) => text,
        None => {
            decoy = decoy_hash(memory);
            decoy.as_str()
        }
    };
    let is_match = matches_hash(memory, hash_text, password).unwrap_or(false);
    is_match && stored_hash.is_some()
}

fn matches_hash(memory: &mut Vec<Block>, hash_text: &str, password: &str) -> argon2::password_hash::Result<bool> {
    let parsed = PasswordHash::new(hash_text)?;
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
        return Ok(false);
    };
    let algorithm = Algorithm::try_from(parsed.algorithm)?;
    let version = parsed.version.map(Version::try_from).transpose()?.unwrap_or_default();
    let mut params = Params::try_from(&parsed)?;
    if params.m_cost() > MAX_MEMORY_KIB {
        return Ok(false);
    }
    if params.output_len() != Some(expected.len()) {
        params = Params::new(params.m_cost(), params.t_cost(), params.p_cost(), Some(expected.len()))?;
    }
    let computed = argon2_output(memory, algorithm, version, &params, password, salt)?;
    // `Output`'s equality is constant-time.
    Ok(computed == expected)
}

/// The raw argon2 output, computed in `memory` (resized to what `params` need; its
/// allocation is kept for the next call).
fn argon2_output(
    memory: &mut Vec<Block>,
    algorithm: Algorithm,
    version: Version,
    params: &Params,
    password: &str,
    salt: argon2::password_hash::Salt<'_>,
) -> argon2::password_hash::Result<Output> {
    let mut salt_buffer = [0u8; 64];
    let salt_bytes = salt.decode_b64(&mut salt_buffer)?;
    let blocks = params.block_count();
    memory.resize(blocks, Block::default());
    let argon2 = Argon2::new(algorithm, version, params.clone());
    let output_len = params.output_len().unwrap_or(Params::DEFAULT_OUTPUT_LEN);
    Output::init_with(output_len, |out| {
        argon2.hash_password_into_with_memory(password.as_bytes(), salt_bytes, out, &mut memory[..])?;
        Ok(())
    })
}

/// A hash of a password nobody uses, made once: what an unknown account is checked against.
fn decoy_hash(memory: &mut Vec<Block>) -> String {
    static DECOY: OnceLock<String> = OnceLock::new();
    DECOY.get_or_init(|| hash_with(memory, "decoy password never used").unwrap_or_default()).clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use argon2::PasswordVerifier;

    #[actix_web::test]
    async fn hashes_verify_only_their_password() -> ApiResult<()> {
        let hasher = PasswordHasher::start(1);
        let hash = hasher.hash("Secret-123".into()).await?;
        assert!(hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{hash}");
        assert!(hasher.verify(Some(hash.clone()), "Secret-123".into()).await?);
        assert!(!hasher.verify(Some(hash), "Secret-124".into()).await?);
        assert!(!hasher.verify(None, "decoy password never used".into()).await?);
        assert!(!hasher.verify(Some("not a hash".into()), "x".into()).await?);
        assert_eq!(hasher.stats().completed, 5);
        Ok(())
    }

    #[test]
    fn hashes_are_standard_argon2id_both_ways() -> argon2::password_hash::Result<()> {
        let mut memory = Vec::new();
        // Ours, checked by the argon2 crate's own verifier (after the memory held other data).
        let _ = hash_with(&mut memory, "something else first")?;
        let ours = hash_with(&mut memory, "Secret-123")?;
        Argon2::default().verify_password(b"Secret-123", &PasswordHash::new(&ours)?)?;
        // The crate's, and one with other parameters, checked by ours.
        let salt = SaltString::generate(&mut OsRng);
        let theirs = argon2::PasswordHasher::hash_password(&Argon2::default(), b"Secret-123", &salt)?.to_string();
        assert!(verify_with(&mut memory, Some(&theirs), "Secret-123"));
        let small = Argon2::new(Algorithm::Argon2id, Version::V0x13, Params::new(1024, 1, 1, Some(24))?);
        let other_params = argon2::PasswordHasher::hash_password(&small, b"Secret-123", &salt)?.to_string();
        assert!(verify_with(&mut memory, Some(&other_params), "Secret-123"));
        assert!(!verify_with(&mut memory, Some(&other_params), "Secret-12"));
        Ok(())
    }

    /// The niceness of each of this process's threads named `name*`, from `/proc`.
    #[cfg(target_os = "linux")]
    fn niceness_of_threads(name: &str) -> Vec<i32> {
        let tasks = std::fs::read_dir("/proc/self/task").expect("/proc/self/task");
        tasks
            .flatten()
            .filter(|task| std::fs::read_to_string(task.path().join("comm")).is_ok_and(|comm| comm.starts_with(name)))
            .filter_map(|task| {
                let stat = std::fs::read_to_string(task.path().join("stat")).ok()?;
                // After the command in parentheses, the 17th field is the niceness.
                let fields = stat.rsplit_once(')')?.1;
                fields.split_whitespace().nth(16)?.parse().ok()
            })
            .collect()
    }

    #[cfg(target_os = "linux")]
    #[actix_web::test]
    async fn hashing_threads_yield_the_cores_to_the_rest_of_the_service() -> ApiResult<()> {
        let hasher = PasswordHasher::start(2);
        // A finished hash means a thread has started (and lowered its priority first).
        let _ = hasher.hash("Secret-123".into()).await?;
        // A thread (this hasher's other one, or another test's) may be named but not lowered
        // yet: give them a moment.
        let mut hashing = niceness_of_threads("password-hash-");
        for _ in 0..100 {
            if hashing.iter().all(|nice| *nice == HASHING_NICENESS) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
            hashing = niceness_of_threads("password-hash-");
        }
        assert!(!hashing.is_empty(), "no hashing thread found");
        assert!(hashing.iter().all(|nice| *nice == HASHING_NICENESS), "{hashing:?}");
        // This test's own thread keeps the service's priority.
        let own = std::fs::read_to_string("/proc/thread-self/stat").expect("stat");
        let own_nice: i32 = own.rsplit_once(')').and_then(|(_, fields)| fields.split_whitespace().nth(16)?.parse().ok()).expect("nice");
        assert!(own_nice < HASHING_NICENESS, "{own_nice}");
        Ok(())
    }

    #[actix_web::test]
    async fn a_full_queue_is_refused_at_once_with_retry_after() {
        let hasher = PasswordHasher::start(1);
        let capacity = QUEUED_JOBS_PER_WORKER + 1;
        let jobs: Vec<_> = (0..capacity * 4).map(|_| hasher.hash("Secret-123".into())).collect();
        let results = futures_util::future::join_all(jobs).await;
        let refused = results.iter().filter(|result| matches!(result, Err(error) if error.status.as_u16() == 503)).count();
        let hashed = results.iter().filter(|result| result.is_ok()).count();
        assert!(refused > 0, "nothing was refused");
        assert!(hashed >= QUEUED_JOBS_PER_WORKER, "only {hashed} hashed");
        let busy = results.iter().find_map(|result| result.as_ref().err()).map(|error| error.retry_after_secs);
        assert_eq!(busy, Some(Some(BUSY_RETRY_AFTER_SECS)));
        let stats = hasher.stats();
        assert_eq!(stats.peak_running, 1, "one worker runs one hash at a time");
        assert_eq!(stats.refused_busy, refused as u64);
    }
}
