//! The fuzz targets over the server's input types, one `pub fn NAME(data: &[u8])` each: run by
//! `cargo fuzz` and replayed over the committed corpus by `cargo test -p server --test all
//! fuzz_corpus`. A target fails by panicking.

#![allow(dead_code)] // each fuzz binary uses one target

use server::runs::http::StartRun;

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

/// `POST /api/v1/runs`: the body type and every check the handler runs before starting a run
/// (the handler itself needs upstreams).
pub fn http_bodies(data: &[u8]) {
    let Ok(request) = serde_json::from_slice::<StartRun>(data) else {
        return;
    };
    match request {
        StartRun::Msqa { dataset, options } => {
            let _ = options.check();
            let _ = server::runs::msqa::rows_from_values("dataset", dataset);
        }
        StartRun::Eotgc { track, dataset, .. } => {
            let _ = server::runs::eotgc::Track::from_number(track);
            let _ = server::runs::eotgc::essays_from_values("dataset", dataset);
        }
    }
}
