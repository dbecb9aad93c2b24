//! Owner and entry tokens: 32 random bytes from the operating system's generator, shown once
//! (hex, with a prefix that says what they are), stored only as their SHA-256, compared in
//! constant time.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Prefix of owner tokens (edit the board, hide/restore/delete entries, read the audit log).
pub const OWNER_PREFIX: &str = "sbo_";
/// Prefix of entry tokens (edit the entry's metadata, withdraw it).
pub const ENTRY_PREFIX: &str = "sbe_";

/// A new token: `prefix` + 64 hex digits of OS randomness.
pub fn new_token(prefix: &str) -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(format!("{prefix}{}", hex::encode(bytes)))
}

/// The SHA-256 (hex) a token is stored as.
pub fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// Whether `token` hashes to `stored` (hex), comparing the digests in constant time.
pub fn matches(token: &str, stored: &str) -> bool {
    let Ok(stored) = hex::decode(stored) else {
        return false;
    };
    let digest = Sha256::digest(token.as_bytes());
    stored.len() == digest.len() && bool::from(digest.as_slice().ct_eq(&stored))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_match_only_their_hash() {
        let a = new_token(OWNER_PREFIX).unwrap();
        let b = new_token(OWNER_PREFIX).unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), OWNER_PREFIX.len() + 64);
        let stored = hash(&a);
        assert!(matches(&a, &stored));
        assert!(!matches(&b, &stored));
        assert!(!matches("", &stored));
        assert!(!matches(&a, "not hex"));
        assert!(!matches(&a, &stored[..10]));
    }
}
