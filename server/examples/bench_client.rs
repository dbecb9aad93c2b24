//! Load client for `scripts/bench-proxy.sh`: sends N chat completions at once to a base URL
//! (loopback only) and prints the latency percentiles and the error count.
//!
//! `bench_client BASE_URL N MODEL TAG [sequential]` — TAG goes into every prompt, so two passes
//! with the same TAG ask the same questions (the second is answered from the proxy's cache).
//! `sequential` sends the N requests one after another on one kept-alive connection.

use std::time::{Duration, Instant};

use serde_json::json;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (base, n, model, tag, sequential) = match &args[..] {
        [_, base, n, model, tag] => (base, n, model, tag, false),
        [_, base, n, model, tag, mode] if mode == "sequential" => (base, n, model, tag, true),
        _ => anyhow::bail!("usage: bench_client BASE_URL N MODEL TAG [sequential]"),
    };
    let url = reqwest::Url::parse(&format!("{base}/chat/completions"))?;
    if url.host_str() != Some("127.0.0.1") && url.host_str() != Some("localhost") {
        anyhow::bail!("loopback only: {url}");
    }
    let n: usize = n.parse()?;
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(n)
        .timeout(Duration::from_secs(60))
        .build()?;
    let start = Instant::now();
    if sequential {
        let mut latencies = Vec::with_capacity(n);
        let mut errors = 0;
        for i in 0..n {
            let body = json!({"model": model, "messages": [{"role": "user", "content": format!("{tag} question {i}?")}]});
            let t = Instant::now();
            let ok = match client.post(url.clone()).json(&body).send().await {
                Ok(r) => r.status().is_success() && r.bytes().await.is_ok(),
                Err(_) => false,
            };
            if !ok {
                errors += 1;
            }
            latencies.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        report(n, errors, latencies, start.elapsed().as_secs_f64());
        return Ok(());
    }
    let mut tasks = Vec::with_capacity(n);
    for i in 0..n {
        let client = client.clone();
        let url = url.clone();
        let body = json!({"model": model, "messages": [{"role": "user", "content": format!("{tag} question {i}?")}]});
        tasks.push(tokio::spawn(async move {
            let t = Instant::now();
            let ok = match client.post(url).json(&body).send().await {
                Ok(r) => r.status().is_success() && r.bytes().await.is_ok(),
                Err(_) => false,
            };
            (t.elapsed(), ok)
        }));
    }
    let mut latencies = Vec::with_capacity(n);
    let mut errors = 0;
    for t in tasks {
        let (latency, ok) = t.await?;
        if !ok {
            errors += 1;
        }
        latencies.push(latency.as_secs_f64() * 1000.0);
    }
    report(n, errors, latencies, start.elapsed().as_secs_f64());
    Ok(())
}

fn report(n: usize, errors: usize, mut latencies: Vec<f64>, wall: f64) {
    latencies.sort_by(f64::total_cmp);
    let pct = |p: f64| latencies[((latencies.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "n={n} errors={errors} p50_ms={:.3} p99_ms={:.3} max_ms={:.3} wall_s={wall:.3} rps={:.0}",
        pct(0.5),
        pct(0.99),
        pct(1.0),
        n as f64 / wall
    );
}
