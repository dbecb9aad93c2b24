//! One module per registered benchmark (see [`crate::registry`]).

pub mod asap_aes;
pub mod eotgc;
pub mod evalscope;
pub(crate) mod imports;
pub mod inspect;
pub mod lm_eval;
pub mod msqa;
pub mod pairs;
pub mod sasbench;
pub mod sgibench;
pub mod spec;
