//! Slow clients against the real `scorebench serve` on loopback: connections that trickle
//! their headers (slow-loris), sit idle after a request, or never finish their body are closed
//! after the configured timeouts, while other clients are served.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::proxy::temp_dir;

struct Server {
    child: Child,
    host: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(tag: &str, extra: &[&str]) -> Server {
    let dir = temp_dir(tag);
    let mut child = Command::new(env!("CARGO_BIN_EXE_scorebench"))
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--db",
            dir.join("db.sqlite3").to_str().unwrap(),
            "--dist",
            dir.join("dist").to_str().unwrap(),
        ])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let host = line
        .trim()
        .strip_prefix("scorebench listening on http://")
        .expect("URL line")
        .trim_end_matches('/')
        .to_string();
    Server { child, host }
}

/// Whether the server has closed the connection (EOF or reset); reads and drops any response.
fn closed(stream: &mut TcpStream) -> bool {
    stream.set_nonblocking(true).unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if e.kind() == ErrorKind::WouldBlock => return false,
            Err(_) => return true,
        }
    }
}

fn health(host: &str) -> String {
    let mut stream = TcpStream::connect(host).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET /api/health HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

#[test]
fn slow_and_idle_connections_are_closed_after_the_timeouts() {
    let server = serve(
        "timeouts",
        &["--header-timeout-secs", "1", "--body-timeout-secs", "1"],
    );
    let host = server.host.clone();
    let started = Instant::now();
    // Slow-loris: 100 connections that send a header line every 200 ms and never finish.
    let mut slow: Vec<TcpStream> = (0..100)
        .map(|_| {
            let mut s = TcpStream::connect(&host).unwrap();
            write!(s, "GET /api/health HTTP/1.1\r\nHost: {host}\r\n").unwrap();
            s
        })
        .collect();
    // Idle: one request answered, then nothing on the kept-alive connection.
    let mut idle = TcpStream::connect(&host).unwrap();
    write!(idle, "GET /api/health HTTP/1.1\r\nHost: {host}\r\n\r\n").unwrap();
    let mut first = [0u8; 12];
    idle.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    // Slow body: a JSON request whose body never completes.
    let mut body = TcpStream::connect(&host).unwrap();
    write!(
        body,
        "POST /api/v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\n\r\n{{\"model\":"
    )
    .unwrap();

    let mut open = slow.len();
    let mut ticks = 0;
    while open > 0 && started.elapsed() < Duration::from_secs(8) {
        std::thread::sleep(Duration::from_millis(200));
        ticks += 1;
        open = 0;
        for s in &mut slow {
            s.set_nonblocking(false).unwrap();
            let wrote = write!(s, "X-Trickle-{ticks}: y\r\n").is_ok();
            if wrote && !closed(s) {
                open += 1;
            }
        }
        // Other clients are served meanwhile.
        if ticks == 2 {
            assert!(health(&host).starts_with("HTTP/1.1 200"));
        }
    }
    let elapsed = started.elapsed();
    assert_eq!(
        open, 0,
        "slow-loris connections still open after {elapsed:?}"
    );
    assert!(
        elapsed >= Duration::from_millis(900),
        "closed before the timeout: {elapsed:?}"
    );
    assert!(
        closed(&mut idle),
        "the idle keep-alive connection is closed"
    );
    // The body that never completed got a 408 (and its connection is closed).
    body.set_nonblocking(false).unwrap();
    body.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut response = String::new();
    let _ = body.read_to_string(&mut response);
    assert!(response.starts_with("HTTP/1.1 408"), "{response}");
    assert!(response.contains("\"request_timeout\""), "{response}");
    assert!(health(&host).starts_with("HTTP/1.1 200"));
}

/// Send `head` (request line and headers, without the blank line) and `body` on a new
/// connection; the connection, for reading the answer.
fn send(host: &str, head: &str, body: &[u8]) -> TcpStream {
    let mut s = TcpStream::connect(host).unwrap();
    write!(s, "{head}\r\nHost: {host}\r\n\r\n").unwrap();
    s.write_all(body).unwrap();
    s
}

/// The whole answer on `s` (the server closes or answers with `Connection: close`).
fn answer(s: &mut TcpStream, within: Duration) -> String {
    s.set_read_timeout(Some(within)).unwrap();
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    // The status line and headers, then the body's length.
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                bytes.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&bytes);
                if let Some((head, rest)) = text.split_once("\r\n\r\n") {
                    let length = head
                        .lines()
                        .find_map(|l| {
                            let (k, v) = l.split_once(':')?;
                            k.eq_ignore_ascii_case("content-length")
                                .then(|| v.trim().parse::<usize>().ok())?
                        })
                        .unwrap_or(0);
                    if rest.len() >= length {
                        break;
                    }
                }
            }
            Err(_) => break,
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn leaderboard_bodies_share_the_limit_the_budget_and_the_timeout() {
    let server = serve(
        "lb-bodies",
        &[
            "--body-timeout-secs",
            "2",
            "--body-budget-mb",
            "32",
            "--max-upload-mb",
            "32",
        ],
    );
    let host = server.host.clone();
    let json = "Content-Type: application/json";

    // Declared over the limit: 413 at once, in the leaderboard API's error shape, no body read.
    let started = Instant::now();
    let mut big = send(
        &host,
        &format!(
            "POST /api/v1/leaderboards/b/entries HTTP/1.1\r\n{json}\r\nContent-Length: {}",
            (32 << 20) + 1
        ),
        b"{",
    );
    let reply = answer(&mut big, Duration::from_secs(5));
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
    assert!(reply.contains("{\"error\":"), "{reply}");
    assert!(reply.contains("--max-upload-mb"), "{reply}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );

    // A chunked body over the limit: 413 as it arrives.
    let mut chunked = send(
        &host,
        &format!("POST /api/v1/leaderboards HTTP/1.1\r\n{json}\r\nTransfer-Encoding: chunked"),
        b"",
    );
    let chunk = vec![b' '; 1 << 20];
    for _ in 0..33 {
        if write!(chunked, "{:x}\r\n", chunk.len()).is_err()
            || chunked.write_all(&chunk).is_err()
            || chunked.write_all(b"\r\n").is_err()
        {
            break;
        }
    }
    let reply = answer(&mut chunked, Duration::from_secs(5));
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");

    // A body that never completes: 408 after the body timeout (2 s), not held longer.
    let started = Instant::now();
    let mut slow = send(
        &host,
        &format!("POST /api/v1/leaderboards HTTP/1.1\r\n{json}\r\nContent-Length: 100"),
        b"{\"title\":",
    );
    let reply = answer(&mut slow, Duration::from_secs(10));
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(reply.contains("{\"error\":"), "{reply}");
    let held = started.elapsed();
    assert!(
        held >= Duration::from_millis(1900) && held < Duration::from_secs(6),
        "{held:?}"
    );

    // One budget: a chunked leaderboard body reserves the whole 32 MiB while it trickles, so a
    // share upload (another route) waits for room until the first gives up (408 at 2 s).
    let mut hog = send(
        &host,
        &format!("POST /api/v1/leaderboards HTTP/1.1\r\n{json}\r\nTransfer-Encoding: chunked"),
        b"1\r\n{\r\n",
    );
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    let mut other = send(
        &host,
        "POST /api/v1/shares HTTP/1.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 2",
        b"xx",
    );
    let reply = answer(&mut other, Duration::from_secs(10));
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(1000),
        "answered after {waited:?} while the budget was held: {reply}"
    );
    // After the hog's timeout the small body is read and stored (or the wait ran out first on
    // a loaded machine: 503).
    assert!(
        reply.starts_with("HTTP/1.1 201") || reply.starts_with("HTTP/1.1 503"),
        "{reply}"
    );
    let reply = answer(&mut hog, Duration::from_secs(10));
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(health(&host).starts_with("HTTP/1.1 200"));
}
