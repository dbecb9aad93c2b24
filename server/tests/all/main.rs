//! All server integration tests in one binary (one link on a 2-core machine).

// Test helpers outside #[test] functions unwrap too: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

mod support;

mod boundary;
mod cli_memory;
mod cli_output;
mod cli_pairs;
mod competition;
mod dry_sandbox;
mod eotgc_total;
mod files;
mod fuzz_corpus;
mod golden_asap_aes;
mod golden_eotgc;
mod golden_imports;
mod golden_msqa;
mod golden_sasbench;
mod golden_sgibench;
mod http;
mod key_hygiene;
mod leaderboard;
mod maintainers;
mod mock_upstream;
mod proxy;
mod run_http;
mod run_msqa;
mod run_sampling;
mod run_sasbench;
mod run_sgi;
mod run_sgi_http;
mod run_sgi_idea;
mod run_state;
mod serve_timeouts;
mod serving;
mod share;
mod spec;
mod store;
