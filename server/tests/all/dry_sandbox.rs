//! SGI-Bench dry experiment step 3 (`scorebench run sgi-dry-exec`): the official records from
//! the golden case's simulated outcomes, the same outcomes produced by real code in the
//! bubblewrap sandbox, and model code that opens sockets, writes outside its scratch, reads the
//! server's environment, fork-bombs, eats memory or sleeps forever, contained and reported as
//! that unit's failure with nothing left running.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use workbench::benchmarks::sgibench::run::dry_exec::{UnitRun, unit_record};

use crate::proxy::{KEY, temp_dir};
use crate::run_msqa::scorebench_cmd;
use crate::support::golden_dir;

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn golden_case() -> (Value, Value) {
    let case = golden_dir().join("sgibench/dry_experiment/dry_units_step3_execution_records");
    (
        read_json(&case.join("input.json")),
        read_json(&case.join("expected.json")),
    )
}

/// The golden scenarios (what `subprocess.run` returned, or raised) through the record builder.
#[test]
fn golden_step3_records_from_the_scenarios() {
    let (input, expected) = golden_case();
    let scenarios = input["unit_test_scenarios"].as_array().unwrap();
    let expected = expected["unit_test"].as_array().unwrap();
    assert_eq!(scenarios.len(), expected.len());
    for (scenario, want) in scenarios.iter().zip(expected) {
        let run = match scenario["kind"].as_str().unwrap() {
            "completed" => UnitRun::Completed {
                returncode: scenario["returncode"].as_i64().unwrap(),
                stdout: scenario["stdout"].as_str().unwrap().into(),
                stderr: scenario["stderr"].as_str().unwrap().into(),
                elapsed_s: scenario["end"].as_f64().unwrap() - scenario["start"].as_f64().unwrap(),
            },
            "timeout" => UnitRun::Timeout { timeout_s: 300 },
            "exception" => UnitRun::Exception {
                message: scenario["message"].as_str().unwrap().into(),
            },
            other => panic!("unknown scenario {other}"),
        };
        assert_eq!(&unit_record(&run), want, "{scenario}");
        // Same key order as the official dict.
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&unit_record(&run)), keys(want));
    }
}

/// Model code reproducing the golden scenarios from a per-unit data file.
const SCENARIO_CODE: &str = r#"import sys, time
case = open("data/case.txt").read().strip()
if case == "ok":
    print("result=1")
elif case == "fail":
    print("partial")
    sys.stdout.flush()
    sys.stderr.write("Traceback...\nValueError: x\n")
    sys.exit(1)
elif case == "exit3":
    print("only stdout")
    sys.exit(3)
elif case == "sleep":
    time.sleep(10**6)
"#;

const NET_CODE: &str = r#"import socket, sys
port = int(open("data/port.txt").read())
errors = []
for host, p in [("127.0.0.1", port), ("1.1.1.1", 80)]:
    try:
        socket.create_connection((host, p), timeout=2)
        print("connected", host)
    except OSError as e:
        errors.append(f"{host}: {type(e).__name__}")
sys.stderr.write("\n".join(errors))
sys.exit(1 if errors else 0)
"#;

const WRITE_CODE: &str = r#"import os, sys
escaped = []
for target in open("data/targets.txt").read().split("\n"):
    try:
        with open(target, "w") as f:
            f.write("escaped")
        escaped.append(target)
    except OSError as e:
        print(type(e).__name__)
with open("inside.txt", "w") as f:
    f.write("scratch is writable")
with open("/tmp/in-tmp.txt", "w") as f:
    f.write("so is /tmp")
print("written", escaped)
sys.exit(1)
"#;

const ENV_CODE: &str = r#"import os, sys
print(dict(os.environ))
for path in ["/proc/1/environ", "/proc/self/environ"]:
    try:
        print(open(path, "rb").read())
    except OSError as e:
        print(type(e).__name__, path)
print(sorted(os.listdir("/proc"))[:50])
print("prefix", sys.prefix)
sys.exit(5)
"#;

const FORK_CODE: &str = "import os\nwhile True:\n    os.fork()\n";

const MEMORY_CODE: &str = "x = bytearray(1 << 30)\nprint(len(x))\n";

/// Sleeps forever, with a grandchild in its own session that sleeps too.
const SLEEP_CODE: &str = r#"import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(10**6)
    os._exit(0)
time.sleep(10**6)
"#;

/// Exits at once, leaving a daemon behind that holds no pipe.
const DAEMON_CODE: &str = r#"import os, time
if os.fork() == 0:
    os.setsid()
    os.close(1)
    os.close(2)
    time.sleep(10**6)
print("parent done")
"#;

fn unit_dir(codes: &Path, idx: &str, unit: usize, data: &[(&str, &str)]) -> PathBuf {
    let dir = codes.join(idx).join(format!("unit_test_{unit}"));
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(dir.join("data_en.py"), "# step 1's data script\n").unwrap();
    for (name, text) in data {
        std::fs::write(dir.join("data").join(name), text).unwrap();
    }
    dir
}

fn item(idx: &str, code: &str) -> Value {
    json!({
        "idx": idx,
        "question": "q",
        "model_answer_with_thinking": format!("<answer>\n{code}</answer>"),
        "model_answer": code,
        "model_code": code,
    })
}

/// The golden scenarios' record, with reference outputs (as the dataset gives them) for step 4.
fn golden_item() -> Value {
    let mut record = item("GOLDEN", SCENARIO_CODE);
    for (k, reference) in ["result=1", "other", "only stdout", "late", "never"]
        .iter()
        .enumerate()
    {
        record[format!("unit_test_{k}_output")] = json!(reference);
    }
    record
}

/// Processes of the uids sandboxed jobs run under, still alive.
fn job_processes() -> Vec<String> {
    let first = server::sandbox::FIRST_JOB_UID;
    let last = first + server::sandbox::MAX_JOBS as u32;
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else {
            continue;
        };
        let uid = status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|u| u.parse::<u32>().ok());
        let zombie = status.lines().any(|l| l.starts_with("State:\tZ"));
        if uid.is_some_and(|u| (first..last).contains(&u)) && !zombie {
            found.push(status.lines().next().unwrap_or("").to_string());
        }
    }
    found
}

/// A virtual environment over Debian's python3 in `dir` (what `python -m venv --without-pip`
/// makes): under /tmp, where the sandbox mounts its own tmpfs, so its prefix is bound inside it.
fn venv(dir: &Path) -> PathBuf {
    let venv = dir.join("venv");
    let python = venv.join("bin/python");
    if !python.exists() {
        std::fs::create_dir_all(venv.join("bin")).unwrap();
        std::os::unix::fs::symlink("/usr/bin/python3", &python).unwrap();
        std::fs::write(
            venv.join("pyvenv.cfg"),
            "home = /usr/bin\ninclude-system-site-packages = false\n",
        )
        .unwrap();
    }
    python
}

fn exec_run(dir: &Path, log: &Path, codes: &Path, extra: &[&str]) -> std::process::Output {
    let out = dir.join("out");
    let db = dir.join("db.sqlite3");
    let python = venv(dir);
    let mut args = vec![
        "run",
        "sgi-dry-exec",
        "--db",
        db.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
        "--codes",
        codes.to_str().unwrap(),
        "--model",
        "org/test-model",
        "--python",
        python.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--workers",
        "2",
    ];
    args.extend_from_slice(extra);
    let output = scorebench_cmd(&args).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn without_runtime(record: &Value) -> Value {
    let mut r = record.clone();
    r.as_object_mut().unwrap().remove("model_runtime");
    r
}

#[test]
fn step3_runs_model_code_in_the_sandbox_and_contains_it() {
    let dir = temp_dir("dry-sandbox");
    let codes = dir.join("codes");
    // The golden scenarios, produced by real code: units 0-3 from their data file, unit 4's
    // folder missing (the official `os.chdir` raises).
    for (unit, case) in ["ok", "fail", "exit3", "sleep"].iter().enumerate() {
        unit_dir(&codes, "GOLDEN", unit, &[("case.txt", case)]);
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    unit_dir(&codes, "NET", 0, &[("port.txt", &port)]);
    let write_unit = unit_dir(&codes, "WRITE", 0, &[]);
    let targets = [
        write_unit.join("escaped.txt"),
        dir.join("escaped.txt"),
        PathBuf::from("/usr/escaped.txt"),
        PathBuf::from("/escaped.txt"),
        PathBuf::from("/input/escaped.txt"),
    ];
    let target_text: Vec<String> = targets.iter().map(|t| t.display().to_string()).collect();
    std::fs::write(write_unit.join("data/targets.txt"), target_text.join("\n")).unwrap();
    for idx in ["ENV", "FORK", "MEMORY", "SLEEP", "DAEMON", "NONE"] {
        unit_dir(&codes, idx, 0, &[]);
    }
    let log = dir.join("test-model.json");
    let records = json!([
        golden_item(),
        item("NET", NET_CODE),
        item("WRITE", WRITE_CODE),
        item("ENV", ENV_CODE),
        item("FORK", FORK_CODE),
        item("MEMORY", MEMORY_CODE),
        item("SLEEP", SLEEP_CODE),
        item("DAEMON", DAEMON_CODE),
        null,
        {"idx": "NONE", "model_answer_with_thinking": "None", "model_code": "print('never written')"},
    ]);
    std::fs::write(&log, serde_json::to_string_pretty(&records).unwrap()).unwrap();
    let limits = [
        "--timeout-s",
        "3",
        "--cpu-s",
        "10",
        "--memory-mb",
        "512",
        "--processes",
        "32",
        "--scratch-mb",
        "16",
    ];
    let started = Instant::now();
    let output = exec_run(&dir, &log, &codes, &limits);
    let took = started.elapsed();
    let summary = String::from_utf8_lossy(&output.stdout).into_owned();
    // 9 records with an idx × 5 units; the null record stays null.
    assert!(
        summary.contains("10 records, 45 units (0 reused)"),
        "{summary}"
    );
    let written = read_json(&dir.join("out/test-model.json"));
    let written = written.as_array().unwrap();
    assert_eq!(written.len(), 10);
    assert_eq!(written[8], Value::Null);
    let units = |i: usize| written[i]["unit_test"].as_array().unwrap().clone();
    let missing = |idx: &str, k: usize| {
        let path = codes.join(idx).join(format!("unit_test_{k}"));
        let message = format!(
            "[WRONG][Errno 2] No such file or directory: '{}'",
            path.display()
        );
        json!({"model_error": message, "model_runtime": -1, "model_returncode": 1, "model_code_output": message})
    };

    // The golden scenarios: records equal to the official ones but for the measured runtime.
    let (_, expected) = golden_case();
    let expected = expected["unit_test"].as_array().unwrap();
    let golden = units(0);
    for k in 0..3 {
        assert_eq!(
            without_runtime(&golden[k]),
            without_runtime(&expected[k]),
            "unit {k}"
        );
        let runtime = golden[k]["model_runtime"].as_f64().unwrap();
        assert!(runtime > 0.0 && runtime < 3.0, "unit {k}: {runtime}");
    }
    // The timeout at 3 s instead of the official 300 s says so.
    let timeout = "[WRONG]Execution timed out after 3 seconds";
    assert_eq!(
        golden[3],
        json!({"model_error": timeout, "model_runtime": 3.0, "model_returncode": -1, "model_code_output": timeout})
    );
    assert_eq!(golden[4], missing("GOLDEN", 4));
    // The other items have only unit 0's folder.
    for record in &written[1..8] {
        let idx = record["idx"].as_str().unwrap();
        for (k, unit) in record["unit_test"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .skip(1)
        {
            assert_eq!(unit, &missing(idx, k), "{idx} unit {k}");
        }
    }

    // No network: the host's loopback listener is not reachable, nothing else either.
    let net = &units(1)[0];
    assert_eq!(net["model_returncode"], 1, "{net}");
    assert_eq!(
        net["model_error"],
        "[WRONG]127.0.0.1: ConnectionRefusedError\n1.1.1.1: OSError"
    );
    assert!(listener.accept().is_err(), "the sandbox reached the host");

    // Nothing written outside the scratch; the scratch itself (and the sandbox's /tmp) is writable.
    // (A path under /tmp may be writable inside: it is the sandbox's own tmpfs.)
    let write = &units(2)[0];
    assert_eq!(write["model_returncode"], 1, "{write}");
    let output = write["model_code_output"].as_str().unwrap();
    assert!(output.starts_with("FileNotFoundError\nOSError"), "{write}");
    for target in &targets {
        assert!(!target.exists(), "{} was written", target.display());
    }
    assert!(!write_unit.join("inside.txt").exists());
    assert!(!write_unit.join("main_[orgtest-model].py").exists());

    // The server's environment (it holds the API keys) and its processes are out of sight.
    let env = &units(3)[0];
    assert_eq!(env["model_returncode"], 5, "{env}");
    let env_output = env["model_code_output"].as_str().unwrap();
    assert!(!env_output.contains(KEY), "{env_output}");
    assert!(!env_output.contains("SCOREBENCH_TEST_KEY"), "{env_output}");
    assert!(
        env_output.contains("'PYTHONIOENCODING': 'utf-8'"),
        "{env_output}"
    );
    // The interpreter is the virtual environment's: its bin folder first on PATH, its prefix.
    let venv = dir.join("venv");
    assert!(
        env_output.contains(&format!("'PATH': '{}/bin:", venv.display())),
        "{env_output}"
    );
    assert!(
        env_output.ends_with(&format!("prefix {}", venv.display())),
        "{env_output}"
    );

    // A fork bomb hits the process limit (or the clock); memory beyond the limit is refused.
    let fork = &units(4)[0];
    assert_ne!(fork["model_returncode"], 0, "{fork}");
    assert!(
        fork["model_error"].as_str().unwrap().starts_with("[WRONG]"),
        "{fork}"
    );
    let memory = &units(5)[0];
    assert_eq!(memory["model_returncode"], 1, "{memory}");
    assert!(
        memory["model_error"]
            .as_str()
            .unwrap()
            .ends_with("MemoryError"),
        "{memory}"
    );

    // Sleeping forever (with a grandchild in its own session) is killed at the wall clock; a
    // daemon left behind by a finished unit dies with its sandbox.
    assert_eq!(
        units(6)[0],
        json!({"model_error": timeout, "model_runtime": 3.0, "model_returncode": -1, "model_code_output": timeout})
    );
    let daemon = &units(7)[0];
    assert_eq!(daemon["model_error"], "[No Error]", "{daemon}");
    assert_eq!(daemon["model_code_output"], "parent done");
    assert!(daemon["model_runtime"].as_f64().unwrap() < 3.0, "{daemon}");

    // The step-3 log is what step 4 reads: unit 0 and unit 2 match their references exactly
    // (unit 2 despite its return code: exact match is checked first); the others failed.
    let step3 = dir.join("golden-step3.json");
    std::fs::write(&step3, serde_json::to_string(&json!([written[0]])).unwrap()).unwrap();
    let report =
        crate::support::score_json(&["score", "sgi-dry", step3.to_str().unwrap(), "--json"]);
    let metrics = &report["overall"]["metrics"];
    assert_eq!(metrics["pass_all_1"], 1.0, "{report}");
    assert_eq!(metrics["pass_all_3"], 0.0, "{report}");
    assert_eq!(metrics["ser"], 0.2, "{report}");

    // Official step 2 wrote no script for a `None` reply: python cannot open it.
    let none = &written[9]["unit_test"][0];
    assert_eq!(none["model_returncode"], 2, "{none}");
    assert!(
        none["model_error"]
            .as_str()
            .unwrap()
            .contains("can't open file"),
        "{none}"
    );

    // Everything is gone, and quickly: 2 workers, the 3 s limit hit three times at most.
    assert!(took < Duration::from_secs(60), "{took:?}");
    // Killed processes may take a moment to be reaped; none may outlive that.
    if server::sandbox::running_as_root() {
        let deadline = Instant::now() + Duration::from_secs(5);
        while !job_processes().is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(job_processes(), Vec::<String>::new());
    }

    // Run again into the same folder: every unit comes from units.jsonl, none runs again.
    let again = exec_run(&dir, &log, &codes, &limits);
    let summary = String::from_utf8_lossy(&again.stdout).into_owned();
    assert!(
        summary.contains("10 records, 45 units (45 reused)"),
        "{summary}"
    );
    assert_eq!(
        read_json(&dir.join("out/test-model.json"))
            .as_array()
            .unwrap(),
        written
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_sandbox_that_cannot_start_is_bad_input() {
    let dir = temp_dir("dry-sandbox-bad");
    let log = dir.join("log.json");
    std::fs::write(&log, "[]").unwrap();
    let output = scorebench_cmd(&[
        "run",
        "sgi-dry-exec",
        "--db",
        dir.join("db.sqlite3").to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
        "--codes",
        dir.to_str().unwrap(),
        "--model",
        "m",
        "--python",
        "/nonexistent/python3",
        "--out",
        dir.join("out").to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the interpreter /nonexistent/python3: cannot run"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Step 3 over `POST /api/v1/runs` on a server whose config has `[sgi_dry_exec]`: the kind is
/// offered with its form (and names no folder of the server), the run writes the command
/// line's step-3 log (as `step3_log.json`), twice alike; a body asking for more workers than
/// the config allows is refused before anything runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn step3_over_http_writes_the_command_lines_log() {
    use crate::mock_upstream::MockUpstream;
    use crate::proxy::{send, state_with};
    use axum::http::StatusCode;

    let dir = temp_dir("dry-http");
    let codes = dir.join("codes");
    for (unit, case) in ["ok", "fail", "exit3", "ok"].iter().enumerate() {
        unit_dir(&codes, "GOLDEN", unit, &[("case.txt", case)]);
    }
    let records = json!([golden_item()]);
    let log = dir.join("step2.json");
    std::fs::write(&log, records.to_string()).unwrap();
    exec_run(&dir, &log, &codes, &[]);
    let cli = read_json(&dir.join("out/step2.json"));

    let python = venv(&dir);
    let section = format!(
        "[sgi_dry_exec]\ncodes = {:?}\npython = {:?}\ntimeout_s = 5\nworkers = 2\n",
        codes.display().to_string(),
        python.display().to_string()
    );
    let mock = MockUpstream::start(std::collections::HashMap::new());
    let (state, _) = state_with(&mock, "dry-http-server", &section);
    let (code, _, text) = send(&state, "GET", "/api/v1/runs/kinds", &[], None).await;
    assert_eq!(code, StatusCode::OK, "{text}");
    let kinds: Value = serde_json::from_str(&text).unwrap();
    let exec = kinds["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["key"] == "sgi-dry-exec")
        .unwrap_or_else(|| panic!("sgi-dry-exec not offered: {text}"))
        .clone();
    assert_eq!(exec["fields"][1]["type"], "text", "{exec}");
    assert_eq!(exec["open"], json!(["step3_log.json"]));
    assert!(
        !text.contains(&codes.display().to_string()),
        "the folder stays on the server"
    );

    let body = json!({"benchmark": "sgi-dry-exec", "log": records, "model": "org/test-model", "workers": 3});
    let (code, _, text) = send(&state, "POST", "/api/v1/runs", &[], Some(body)).await;
    assert_eq!(code, StatusCode::BAD_REQUEST, "{text}");
    assert!(text.contains("workers must be between 1 and 2"), "{text}");

    let body = json!({"benchmark": "sgi-dry-exec", "log": records, "model": "org/test-model", "workers": 2});
    for round in 0..2 {
        let (code, _, text) = send(&state, "POST", "/api/v1/runs", &[], Some(body.clone())).await;
        assert_eq!(code, StatusCode::ACCEPTED, "{text}");
        let id = serde_json::from_str::<Value>(&text).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let deadline = Instant::now() + Duration::from_secs(60);
        let done = loop {
            let (_, _, text) = send(&state, "GET", &format!("/api/v1/runs/{id}"), &[], None).await;
            let v: Value = serde_json::from_str(&text).unwrap();
            match v["state"].as_str().unwrap() {
                "finished" => break v,
                "running" => {}
                other => panic!("run {other}: {v}"),
            }
            assert!(Instant::now() < deadline, "timed out: {v}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert_eq!(
            done["files"],
            json!(["step3_log.json", "units.jsonl"]),
            "{done}"
        );
        let (code, _, text) = send(
            &state,
            "GET",
            &format!("/api/v1/runs/{id}/files/step3_log.json"),
            &[],
            None,
        )
        .await;
        assert_eq!(code, StatusCode::OK, "{text}");
        let http: Value = serde_json::from_str(&text).unwrap();
        let units = |v: &Value| -> Vec<Value> {
            v[0]["unit_test"]
                .as_array()
                .unwrap()
                .iter()
                .map(without_runtime)
                .collect()
        };
        assert_eq!(units(&http), units(&cli), "round {round}");
        assert_eq!(http[0]["idx"], cli[0]["idx"]);
    }
}
