//! (being written)
pub fn score_log(name: &str, _text: &str) -> Result<crate::Report, crate::InputError> {
    Err(crate::InputError::whole_file(
        name,
        "sgi-idea scoring is not available yet",
    ))
}
