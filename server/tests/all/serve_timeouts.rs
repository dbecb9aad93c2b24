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
