//! The signed file format: a signature line, then the document.
//!
//! ```text
//! kQ7rT2xNfV9bLs4HcZ1pWm8YdE3uJa6oRgX0tBiCv5s=     <- base64(HMAC-SHA256(key, body)), 44 chars
//! {                                                <- body: every byte after the first '\n'
//!   "SchemaVersion": 1,
//!   ...
//! }
//! ```

use std::fmt;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::Sha256;

use crate::error::LoadError;

/// Length of the signature line: base64 of 32 bytes, padded.
pub const SIGNATURE_LEN: usize = 44;

/// The secret an app signs its saves with.
///
/// The examples read it from `WYRD_SAVE_KEY` (see [`SaveKey::from_env_or_dev`]).
#[derive(Clone, PartialEq, Eq)]
pub struct SaveKey(Arc<[u8]>);

impl fmt::Debug for SaveKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the key itself.
        write!(f, "SaveKey({} bytes)", self.0.len())
    }
}

impl SaveKey {
    /// The development key the examples fall back to when `WYRD_SAVE_KEY` is
    /// not set. Public on purpose: ship your own key.
    pub const DEVELOPMENT: &'static str = "wyrd-development-key-not-for-release";

    /// A key from raw bytes.
    pub fn new(bytes: impl AsRef<[u8]>) -> Self {
        SaveKey(Arc::from(bytes.as_ref()))
    }

    /// The UTF-8 bytes of the `WYRD_SAVE_KEY` environment variable, or
    /// [`SaveKey::DEVELOPMENT`] when it is unset or empty.
    pub fn from_env_or_dev() -> Self {
        match std::env::var("WYRD_SAVE_KEY") {
            Ok(k) if !k.is_empty() => SaveKey::new(k.as_bytes()),
            _ => SaveKey::new(Self::DEVELOPMENT),
        }
    }

    /// The key's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    fn mac(&self) -> Hmac<Sha256> {
        // HMAC accepts keys of any length; this never fails.
        <Hmac<Sha256> as Mac>::new_from_slice(&self.0).expect("HMAC takes keys of any length")
    }

    /// The 44-character signature of `body`.
    pub fn sign(&self, body: &[u8]) -> String {
        let mut mac = self.mac();
        mac.update(body);
        STANDARD.encode(mac.finalize().into_bytes())
    }

    /// `signature \n body`: the bytes of a signed file.
    pub fn seal(&self, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(SIGNATURE_LEN + 1 + body.len());
        out.extend_from_slice(self.sign(body).as_bytes());
        out.push(b'\n');
        out.extend_from_slice(body);
        out
    }

    /// Checks the signature line against the body with a constant-time
    /// compare and returns the body. Parses nothing before that.
    pub fn open<'a>(&self, file: &'a [u8]) -> Result<&'a [u8], LoadError> {
        if file.is_empty() {
            return Err(LoadError::Empty);
        }
        let Some(newline) = file.iter().position(|&b| b == b'\n') else {
            return Err(LoadError::NoNewline);
        };
        let line = &file[..newline];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let body = &file[newline + 1..];
        if line.len() > 4 * SIGNATURE_LEN {
            return Err(LoadError::SignatureLength { len: line.len() });
        }
        let signature = STANDARD
            .decode(line)
            .map_err(|e| LoadError::BadBase64(e.to_string()))?;
        if signature.len() != 32 {
            return Err(LoadError::SignatureLength {
                len: signature.len(),
            });
        }
        let mut mac = self.mac();
        mac.update(body);
        // `verify_slice` compares in constant time.
        if mac.verify_slice(&signature).is_err() {
            return Err(if looks_truncated(body) {
                LoadError::Truncated
            } else {
                LoadError::SignatureMismatch
            });
        }
        Ok(body)
    }

    /// Serializes `document` as pretty JSON and signs it.
    pub fn seal_json<T: Serialize>(&self, document: &T) -> Result<Vec<u8>, serde_json::Error> {
        let body = serde_json::to_vec_pretty(document)?;
        Ok(self.seal(&body))
    }

    /// Verifies, then parses a document of schema version `supported` or
    /// older. See [`LoadError`] for everything that can be wrong.
    pub fn open_json<T: DeserializeOwned>(
        &self,
        file: &[u8],
        supported: u32,
    ) -> Result<T, LoadError> {
        let body = self.open(file)?;
        parse_document(body, supported)
    }
}

/// A JSON document always ends with `}`: a body that does not was most
/// likely cut short (a crash while copying, a full disk). Only used to word
/// the error after the signature failed; nothing is trusted from it.
fn looks_truncated(body: &[u8]) -> bool {
    body.iter()
        .rev()
        .find(|b| !b.is_ascii_whitespace())
        .is_none_or(|&b| b != b'}')
}

/// Only the schema version; the rest of the document is skipped unparsed.
#[derive(serde::Deserialize)]
struct Header {
    #[serde(rename = "SchemaVersion")]
    schema_version: Option<serde_json::Value>,
}

/// Parses a verified body: UTF-8, JSON, the schema version, the schema.
pub fn parse_document<T: DeserializeOwned>(body: &[u8], supported: u32) -> Result<T, LoadError> {
    let text = std::str::from_utf8(body).map_err(|e| LoadError::NotUtf8 {
        offset: e.valid_up_to(),
    })?;
    // A first pass reads the version only (and tells malformed JSON from a
    // wrong shape); the second builds the document straight from the text.
    let header: Header = serde_json::from_str(text).map_err(|e| {
        if e.is_data() {
            LoadError::WrongSchema(e.to_string())
        } else {
            LoadError::NotJson {
                line: e.line(),
                column: e.column(),
                message: e.to_string(),
            }
        }
    })?;
    let version = header
        .schema_version
        .ok_or_else(|| LoadError::WrongSchema("no SchemaVersion field".into()))?;
    let version = version.as_u64().ok_or_else(|| {
        LoadError::WrongSchema(format!("SchemaVersion is {version}, not a number"))
    })?;
    if version > u64::from(supported) {
        return Err(LoadError::NewerSchema {
            found: version,
            supported,
        });
    }
    serde_json::from_str(text).map_err(|e| LoadError::WrongSchema(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seal_then_open() {
        let key = SaveKey::new("k");
        let sealed = key.seal(b"{}\n");
        assert_eq!(sealed.iter().position(|&b| b == b'\n'), Some(SIGNATURE_LEN));
        assert_eq!(key.open(&sealed).unwrap(), b"{}\n");
        assert!(matches!(
            SaveKey::new("other").open(&sealed),
            Err(LoadError::SignatureMismatch)
        ));
    }
}
