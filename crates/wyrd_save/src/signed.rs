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

/// The name of the save counter field the store adds to every document.
pub const SAVE_COUNTER_FIELD: &str = "SaveCounter";

/// The name of the field the store adds before the save counter: the file
/// names of every document of the slot at that save point, so that a
/// document missing later is known to have been part of it.
pub const SLOT_DOCUMENTS_FIELD: &str = "SlotDocuments";

/// serde_json's nesting limit; deeper documents are [`LoadError::TooDeep`].
const NESTING_LIMIT: usize = 128;

/// What the store reads of every document before parsing it in full.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentHeader {
    /// `SchemaVersion`: 1 or more.
    pub schema_version: u64,
    /// `SaveCounter`: the save point the document belongs to; 0 when
    /// absent (saves written before save points, such as the seed's).
    pub save_counter: u64,
    /// `SlotDocuments`: the slot's documents at that save point; `None`
    /// when absent (saves of earlier builds, the seed's).
    pub slot_documents: Option<Vec<String>>,
}

/// Only the header fields; the rest of the document is skipped unparsed.
#[derive(serde::Deserialize)]
struct RawHeader {
    #[serde(rename = "SchemaVersion")]
    schema_version: Option<serde_json::Value>,
    #[serde(rename = "SaveCounter")]
    save_counter: Option<serde_json::Value>,
    #[serde(rename = "SlotDocuments")]
    slot_documents: Option<serde_json::Value>,
}

fn json_error(e: &serde_json::Error) -> LoadError {
    let message = e.to_string();
    if message.starts_with("recursion limit exceeded") {
        LoadError::TooDeep {
            limit: NESTING_LIMIT,
            line: e.line(),
            column: e.column(),
        }
    } else if e.is_data() {
        LoadError::WrongSchema(message)
    } else {
        LoadError::NotJson {
            line: e.line(),
            column: e.column(),
            message,
        }
    }
}

fn utf8(body: &[u8]) -> Result<&str, LoadError> {
    std::str::from_utf8(body).map_err(|e| LoadError::NotUtf8 {
        offset: e.valid_up_to(),
    })
}

/// Reads a verified body's header: UTF-8, JSON, `SchemaVersion` (a whole
/// number from 1 up, at most `supported`), `SaveCounter` (a whole number
/// from 0 up, 0 when absent).
pub fn read_header(body: &[u8], supported: u32) -> Result<DocumentHeader, LoadError> {
    let text = utf8(body)?;
    let raw: RawHeader = serde_json::from_str(text).map_err(|e| json_error(&e))?;
    let version = raw
        .schema_version
        .ok_or_else(|| LoadError::WrongSchema("no SchemaVersion field".into()))?;
    let schema_version = match version.as_u64() {
        Some(v) if v >= 1 => v,
        _ => {
            return Err(LoadError::WrongSchema(format!(
                "SchemaVersion must be a whole number from 1 up, found {version}"
            )));
        }
    };
    if schema_version > u64::from(supported) {
        return Err(LoadError::NewerSchema {
            found: schema_version,
            supported,
        });
    }
    let save_counter = match raw.save_counter {
        None => 0,
        Some(c) => c.as_u64().ok_or_else(|| {
            LoadError::WrongSchema(format!(
                "{SAVE_COUNTER_FIELD} must be a whole number from 0 up, found {c}"
            ))
        })?,
    };
    let slot_documents = match raw.slot_documents {
        None => None,
        Some(serde_json::Value::Array(names)) => Some(
            names
                .into_iter()
                .map(|n| match n {
                    serde_json::Value::String(s) => Ok(s),
                    other => Err(other),
                })
                .collect::<Result<Vec<String>, _>>()
                .map_err(|v| {
                    LoadError::WrongSchema(format!(
                        "{SLOT_DOCUMENTS_FIELD} must list file names, found {v}"
                    ))
                })?,
        ),
        Some(other) => {
            return Err(LoadError::WrongSchema(format!(
                "{SLOT_DOCUMENTS_FIELD} must be a list of file names, found {other}"
            )));
        }
    };
    Ok(DocumentHeader {
        schema_version,
        save_counter,
        slot_documents,
    })
}

/// Parses a verified body in full (after [`read_header`]).
pub fn parse_body<T: DeserializeOwned>(body: &[u8]) -> Result<T, LoadError> {
    let text = utf8(body)?;
    serde_json::from_str(text).map_err(|e| match json_error(&e) {
        LoadError::NotJson { message, .. } => LoadError::WrongSchema(message),
        other => other,
    })
}

/// Parses a verified body: UTF-8, JSON, the header, the schema.
pub fn parse_document<T: DeserializeOwned>(body: &[u8], supported: u32) -> Result<T, LoadError> {
    read_header(body, supported)?;
    parse_body(body)
}

/// Adds `"SaveCounter": counter` as the last member of the top-level JSON
/// object `body`, keeping serde_json's pretty layout:
///
/// ```
/// let body = b"{\n  \"SchemaVersion\": 1\n}";
/// let out = wyrd_save::insert_save_counter(body, 7).unwrap();
/// assert_eq!(out, b"{\n  \"SchemaVersion\": 1,\n  \"SaveCounter\": 7\n}");
/// ```
///
/// `None` when `body` is not an object (it does not end with `}`).
pub fn insert_save_counter(body: &[u8], counter: u64) -> Option<Vec<u8>> {
    insert_fields(body, &format!("\"{SAVE_COUNTER_FIELD}\": {counter}"))
}

/// What the store writes at the end of every document it commits:
/// `"SlotDocuments": [..the slot's file names..]`, then
/// `"SaveCounter": counter` as the last member:
///
/// ```
/// let body = b"{\n  \"SchemaVersion\": 1\n}";
/// let out = wyrd_save::insert_slot_fields(body, &["a.json", "b.json"], 7).unwrap();
/// assert_eq!(
///     out,
///     b"{\n  \"SchemaVersion\": 1,\n  \"SlotDocuments\": [\"a.json\", \"b.json\"],\n  \"SaveCounter\": 7\n}"
/// );
/// ```
pub fn insert_slot_fields(body: &[u8], documents: &[&str], counter: u64) -> Option<Vec<u8>> {
    let names: Vec<String> = documents
        .iter()
        .map(|d| serde_json::Value::String((*d).to_owned()).to_string())
        .collect();
    insert_fields(
        body,
        &format!(
            "\"{SLOT_DOCUMENTS_FIELD}\": [{}],\n  \"{SAVE_COUNTER_FIELD}\": {counter}",
            names.join(", ")
        ),
    )
}

/// Appends `members` (already JSON, indented for the top level) to the
/// top-level object `body`, keeping serde_json's pretty layout.
fn insert_fields(body: &[u8], members: &str) -> Option<Vec<u8>> {
    let close = body.iter().rposition(|b| !b.is_ascii_whitespace())?;
    if body[close] != b'}' {
        return None;
    }
    let last = body[..close]
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())?;
    let mut out = Vec::with_capacity(body.len() + 32);
    out.extend_from_slice(&body[..=last]);
    if body[last] != b'{' {
        out.push(b',');
    }
    out.extend_from_slice(format!("\n  {members}\n}}").as_bytes());
    Some(out)
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

#[cfg(test)]
mod header_tests {
    use super::*;

    #[test]
    fn header_messages_say_what_is_wrong() {
        let err = |b: &[u8]| read_header(b, 1).unwrap_err().to_string();
        assert!(err(br#"{"SchemaVersion": -1}"#).contains("whole number from 1 up, found -1"));
        assert!(err(br#"{"SchemaVersion": 0}"#).contains("found 0"));
        assert!(err(br#"{"SchemaVersion": 1, "SaveCounter": -3}"#).contains("found -3"));
        assert!(err(br#"{"SchemaVersion": 99}"#).contains("newer version"));
        let deep = format!(
            "{{\"SchemaVersion\": 1, \"X\": {}{}}}",
            "[".repeat(200),
            "]".repeat(200)
        );
        assert!(matches!(
            parse_document::<serde_json::Value>(deep.as_bytes(), 1),
            Err(LoadError::TooDeep {
                limit: 128,
                line: 1,
                ..
            })
        ));
        assert_eq!(
            read_header(br#"{"SchemaVersion": 1}"#, 1),
            Ok(DocumentHeader {
                schema_version: 1,
                save_counter: 0,
                slot_documents: None,
            })
        );
    }

    #[test]
    fn the_counter_goes_last_even_in_an_empty_object() {
        assert_eq!(
            insert_save_counter(b"{}", 3).unwrap(),
            b"{\n  \"SaveCounter\": 3\n}"
        );
        assert_eq!(insert_save_counter(b"[1]", 3), None);
        let out = insert_save_counter(b"{\"SchemaVersion\": 1}\n", 9).unwrap();
        assert_eq!(read_header(&out, 1).unwrap().save_counter, 9);
    }
}
