//! The fuzz targets over the server's input types, one `pub fn NAME(data: &[u8])` each: run by
//! `cargo fuzz` and replayed over the committed corpus by `cargo test -p server --test all
//! fuzz_corpus`. A target fails by panicking.

#![allow(dead_code)] // each fuzz binary uses one target

/// The names of the targets, for the corpus replay.
pub const TARGETS: [&str; 2] = ["config_toml", "http_bodies"];

/// Run the target called `name`.
pub fn run(name: &str, data: &[u8]) {
    match name {
        "config_toml" => config_toml(data),
        "http_bodies" => http_bodies(data),
        _ => panic!("no fuzz target {name}"),
    }
}

/// `scorebench serve --config FILE`: the upstream configuration (keys from a fake environment).
pub fn config_toml(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = server::config::Config::parse("config.toml", &text, |name| {
        (name.len() % 2 == 0).then(|| format!("key-{name}"))
    });
}

/// `POST /api/v1/runs`: the run kind named by the body, its fields read against the kind's
/// params (every model taken as served), and its plan made from them (no IO: the records are
/// in the body).
pub fn http_bodies(data: &[u8]) {
    let Ok(kind) = server::runs::registry::kind_of_body(data) else {
        return;
    };
    let Ok(body) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    if let Some(spec) = server::runs::form::spec(kind.key())
        && let Ok(values) = server::runs::form::from_body(spec, &body, &|_| true)
    {
        let _ = (spec.plan)(values);
    }
}
