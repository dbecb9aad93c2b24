//! The command line's HTTP client of a running server, and how a command fails.

use serde_json::Value;

/// Why a command stopped (exit 2), or a verification that found differences (exit 1).
#[derive(Debug)]
pub(super) enum Failure {
    Error(String),
    Differs(String),
}

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure::Error(e.to_string())
    }
}

pub(super) struct Client {
    pub(super) base: String,
    pub(super) http: reqwest::Client,
}

impl Client {
    pub(super) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Send, and turn a non-2xx reply into its `error` message.
    pub(super) async fn send(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, Failure> {
        let response = request
            .send()
            .await
            .map_err(|e| Failure::Error(format!("cannot reach {}: {e}", self.base)))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let body: Value = response.json().await.unwrap_or(Value::Null);
        let mut message = body["error"]
            .as_str()
            .map_or_else(|| format!("the server answered {status}"), str::to_string);
        if let Some(differences) = body["differences"].as_array() {
            for d in differences {
                message.push_str(&format!(
                    "\n  {}: server {} vs client {}",
                    d["at"].as_str().unwrap_or("?"),
                    d["server"],
                    d["other"]
                ));
            }
        }
        Err(Failure::Error(match status.as_u16() {
            403 => format!("bad token: {message}"),
            _ => message,
        }))
    }

    pub(super) async fn json(&self, request: reqwest::RequestBuilder) -> Result<Value, Failure> {
        Ok(self.send(request).await?.json().await?)
    }

    pub(super) async fn bytes(&self, path: &str) -> Result<Vec<u8>, Failure> {
        Ok(self
            .send(self.http.get(self.url(path)))
            .await?
            .bytes()
            .await?
            .to_vec())
    }
}

/// Write to stdout; a full disk or a closed pipe is an error, not a panic.
pub(super) fn out(text: &str) -> Result<(), Failure> {
    crate::output::write_stdout(text)
        .map_err(|e| Failure::Error(format!("cannot write to stdout: {e}")))
}
