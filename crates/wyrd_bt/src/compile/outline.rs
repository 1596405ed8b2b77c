//! Where things are in a RON file: a second, small parser that keeps byte
//! offsets (ron 0.12 has no spanned values), run on text ron accepted. The
//! compiler places each error at the node or value it is about with it;
//! and, on text ron refused, it finds the bracket that was never closed.

/// One value of the file, with its byte range.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset just past its last character (its closing bracket).
    pub end: usize,
    /// What it is.
    pub body: Body,
}

/// A value's shape.
#[derive(Debug, Clone)]
pub(crate) enum Body {
    /// A number, identifier or char.
    Atom,
    /// A string, unescaped enough to compare keys.
    Str(String),
    /// `Name(...)`, or `(...)` with an empty name: fields in file order.
    Named(String, Vec<Field>),
    /// `[...]`.
    List(Vec<Item>),
    /// `{...}`: key and value.
    Map(Vec<(Item, Item)>),
}

/// A field of `Name(...)`: `key: value` or a bare value.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    /// The key and its offset.
    pub key: Option<(String, usize)>,
    /// The value.
    pub value: Item,
}

impl Item {
    /// The field `key` of a `Name(...)` item.
    pub fn field(&self, key: &str) -> Option<&Item> {
        match &self.body {
            Body::Named(_, fields) => fields
                .iter()
                .find(|f| f.key.as_ref().is_some_and(|(k, _)| k == key))
                .map(|f| &f.value),
            _ => None,
        }
    }

    /// The name of a `Name(...)` item.
    pub fn name(&self) -> Option<&str> {
        match &self.body {
            Body::Named(n, _) => Some(n),
            _ => None,
        }
    }

    /// A `Name((...))` written for a struct variant: the inner item.
    pub fn unwrapped(&self) -> &Item {
        match &self.body {
            Body::Named(n, fields)
                if fields.len() == 1 && fields[0].key.is_none() && !n.is_empty() =>
            {
                match &fields[0].value.body {
                    Body::Named(inner, _) if inner.is_empty() => &fields[0].value,
                    _ => self,
                }
            }
            _ => self,
        }
    }
}

/// Line and column (1-based) of each entry of the list field `key` of a
/// file's top item (a `Name((...))` unwrapped), in file order: where the
/// errors about those entries point. Empty when the text does not parse
/// or has no such list.
pub(crate) fn list_places(text: &str, key: &str) -> Vec<(usize, usize)> {
    let Some(top) = outline(text) else {
        return Vec::new();
    };
    match top.unwrapped().field(key) {
        Some(Item {
            body: Body::List(items),
            ..
        }) => items
            .iter()
            .map(|item| super::line_col(text, item.start))
            .collect(),
        _ => Vec::new(),
    }
}

/// A token: its kind and byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Open(u8),
    Close(u8),
    Comma,
    Colon,
    Str,
    Word,
    Other,
}

/// The tokens of a RON text (comments skipped), or `None` at a lexical
/// error (an unterminated string or comment).
fn tokens(text: &str) -> Option<Vec<(Tok, usize, usize)>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        match c {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                // Block comments nest in RON.
                let mut depth = 0usize;
                loop {
                    if i + 1 >= b.len() {
                        return None;
                    }
                    if b[i] == b'/' && b[i + 1] == b'*' {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b[i + 1] == b'/' {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                continue;
            }
            b'"' => {
                i = string_end(b, i)?;
                out.push((Tok::Str, start, i));
                continue;
            }
            b'r' if matches!(b.get(i + 1), Some(b'"' | b'#')) => {
                let mut hashes = 0;
                let mut j = i + 1;
                while b.get(j) == Some(&b'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) != Some(&b'"') {
                    i += 1;
                    out.push((Tok::Word, start, i));
                    continue;
                }
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                let rest = &b[j + 1..];
                let at = rest.windows(close.len()).position(|w| w == close)?;
                i = j + 1 + at + close.len();
                out.push((Tok::Str, start, i));
                continue;
            }
            b'b' if b.get(i + 1) == Some(&b'"') => {
                i = string_end(b, i + 1)?;
                out.push((Tok::Str, start, i));
                continue;
            }
            b'\'' => {
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                out.push((Tok::Other, start, i));
                continue;
            }
            b'(' | b'[' | b'{' => out.push((Tok::Open(c), i, i + 1)),
            b')' | b']' | b'}' => out.push((Tok::Close(c), i, i + 1)),
            b',' => out.push((Tok::Comma, i, i + 1)),
            b':' => out.push((Tok::Colon, i, i + 1)),
            _ if c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'+' || c == b'.' => {
                while i < b.len()
                    && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'-' | b'+' | b'.'))
                {
                    i += 1;
                }
                out.push((Tok::Word, start, i));
                continue;
            }
            _ if c.is_ascii() => out.push((Tok::Other, i, i + 1)),
            _ => {
                // A character of more than one byte (a no-break space, an
                // accent): one token, so that no slice cuts it.
                let len = text[i..].chars().next().map_or(1, char::len_utf8);
                out.push((Tok::Other, i, i + len));
                i += len;
                continue;
            }
        }
        i += 1;
    }
    Some(out)
}

/// The offset just past the string starting with the quote at `i`.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

struct Parser<'t> {
    text: &'t str,
    toks: Vec<(Tok, usize, usize)>,
    pos: usize,
    /// How deep `value` is nested now: past [`MAX_DEPTH`] the outline
    /// gives up (a file nested thousands deep would overflow the stack).
    depth: usize,
}

/// Nesting the outline follows (far deeper than any tree ron reads).
const MAX_DEPTH: usize = 256;

impl Parser<'_> {
    fn peek(&self) -> Option<(Tok, usize, usize)> {
        self.toks.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<(Tok, usize, usize)> {
        let t = self.peek();
        self.pos += 1;
        t
    }

    fn value(&mut self) -> Option<Item> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let item = self.value_here();
        self.depth -= 1;
        item
    }

    fn value_here(&mut self) -> Option<Item> {
        let (tok, start, end) = self.next()?;
        match tok {
            Tok::Str => Some(Item {
                start,
                end,
                body: Body::Str(unquote(&self.text[start..end])),
            }),
            Tok::Word => {
                if let Some((Tok::Open(b'('), _, _)) = self.peek() {
                    self.pos += 1;
                    let name = self.text[start..end].to_owned();
                    let (fields, end) = self.fields()?;
                    Some(Item {
                        start,
                        end,
                        body: Body::Named(name, fields),
                    })
                } else {
                    Some(Item {
                        start,
                        end,
                        body: Body::Atom,
                    })
                }
            }
            Tok::Open(b'(') => {
                let (fields, end) = self.fields()?;
                Some(Item {
                    start,
                    end,
                    body: Body::Named(String::new(), fields),
                })
            }
            Tok::Open(b'[') => {
                let mut items = Vec::new();
                loop {
                    if let Some((Tok::Close(b']'), _, end)) = self.peek() {
                        self.pos += 1;
                        return Some(Item {
                            start,
                            end,
                            body: Body::List(items),
                        });
                    }
                    items.push(self.value()?);
                    if let Some((Tok::Comma, _, _)) = self.peek() {
                        self.pos += 1;
                    }
                }
            }
            Tok::Open(b'{') => {
                let mut entries = Vec::new();
                loop {
                    if let Some((Tok::Close(b'}'), _, end)) = self.peek() {
                        self.pos += 1;
                        return Some(Item {
                            start,
                            end,
                            body: Body::Map(entries),
                        });
                    }
                    let k = self.value()?;
                    if self.next()?.0 != Tok::Colon {
                        return None;
                    }
                    let v = self.value()?;
                    entries.push((k, v));
                    if let Some((Tok::Comma, _, _)) = self.peek() {
                        self.pos += 1;
                    }
                }
            }
            Tok::Other => {
                // `#![enable(..)]`, a sign: skip to the next value.
                if self.text[start..end] == *"#" {
                    return self.value();
                }
                Some(Item {
                    start,
                    end,
                    body: Body::Atom,
                })
            }
            _ => None,
        }
    }

    /// The fields of `(...)` after its `(`, up to its `)`, and where the
    /// `)` ends.
    fn fields(&mut self) -> Option<(Vec<Field>, usize)> {
        let mut fields = Vec::new();
        loop {
            if let Some((Tok::Close(b')'), _, end)) = self.peek() {
                self.pos += 1;
                return Some((fields, end));
            }
            let key = match (self.peek(), self.toks.get(self.pos + 1)) {
                (Some((Tok::Word, s, e)), Some((Tok::Colon, _, _))) => {
                    self.pos += 2;
                    Some((self.text[s..e].to_owned(), s))
                }
                _ => None,
            };
            let value = self.value()?;
            fields.push(Field { key, value });
            if let Some((Tok::Comma, _, _)) = self.peek() {
                self.pos += 1;
            }
        }
    }
}

/// A string token's text without quotes (escapes of quotes and
/// backslashes undone; enough to compare keys and names).
fn unquote(token: &str) -> String {
    let t = token.trim_start_matches(['r', 'b']).trim_matches('#');
    let inner = t
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(t);
    inner.replace("\\\"", "\"").replace("\\\\", "\\")
}

/// The outline of a RON document ron accepted: its top value. `None` if
/// this small parser does not follow it (errors are then placed by name).
pub(crate) fn outline(text: &str) -> Option<Item> {
    let toks = tokens(text)?;
    let mut p = Parser {
        text,
        toks,
        pos: 0,
        depth: 0,
    };
    // `#![enable(..)]` attributes before the value.
    while let Some((Tok::Other, s, e)) = p.peek() {
        if text[s..e] != *"#" {
            break;
        }
        p.pos += 1;
        if let Some((Tok::Other, s, e)) = p.peek()
            && text[s..e] == *"!"
        {
            p.pos += 1;
        }
        p.value()?;
    }
    p.value()
}

/// Where the node `kind(...)` whose closing bracket is at byte `close`
/// starts (its name), in text ron accepted; `None` if there is none.
pub(crate) fn node_closed_at(text: &str, kind: &str, close: usize) -> Option<usize> {
    fn find(item: &Item, kind: &str, close: usize) -> Option<usize> {
        if item.name() == Some(kind) && item.end == close + 1 {
            return Some(item.start);
        }
        match &item.body {
            Body::Named(_, fields) => fields.iter().find_map(|f| find(&f.value, kind, close)),
            Body::List(items) => items.iter().find_map(|i| find(i, kind, close)),
            Body::Map(pairs) => pairs.iter().find_map(|(_, v)| find(v, kind, close)),
            Body::Atom | Body::Str(_) => None,
        }
    }
    find(&outline(text)?, kind, close)
}

/// A bracket opened and not closed: which, where it opened, and where the
/// text shows it (a closer of another kind, or the end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unclosed {
    /// `(`, `[` or `{`.
    pub open: char,
    /// Byte offset of the opener.
    pub opened_at: usize,
    /// Byte offset of the closer that does not match it, or the text's end.
    pub at: usize,
    /// The closer found there, if any.
    pub found: Option<char>,
}

impl Unclosed {
    /// The closer it needs.
    pub fn close(&self) -> char {
        match self.open {
            '(' => ')',
            '[' => ']',
            _ => '}',
        }
    }

    /// What the bracket opens, in words.
    pub fn what(&self) -> &'static str {
        match self.open {
            '(' => "parentheses",
            '[' => "list",
            _ => "map",
        }
    }
}

/// The first bracket that is not closed where it should be (strings and
/// comments skipped).
pub(crate) fn unclosed(text: &str) -> Option<Unclosed> {
    let toks = tokens(text)?;
    let mut stack: Vec<(u8, usize)> = Vec::new();
    for (tok, start, _) in toks {
        match tok {
            Tok::Open(c) => stack.push((c, start)),
            Tok::Close(c) => {
                let want = match c {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                match stack.pop() {
                    Some((o, _)) if o == want => {}
                    Some((o, at)) => {
                        return Some(Unclosed {
                            open: o as char,
                            opened_at: at,
                            at: start,
                            found: Some(c as char),
                        });
                    }
                    None => return None,
                }
            }
            _ => {}
        }
    }
    stack.pop().map(|(o, at)| Unclosed {
        open: o as char,
        opened_at: at,
        at: text.len(),
        found: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_entries_keep_their_offsets() {
        let text = r#"(root: Action(action: "MoveTo", params: {"speed": "fast"}), // c
            behaviors: [Use(behavior: "go_to", with: {"x": 1})])"#;
        let top = outline(text).unwrap();
        let root = top.field("root").unwrap();
        assert_eq!(root.name(), Some("Action"));
        assert_eq!(&text[root.start..root.start + 6], "Action");
        let Body::Map(entries) = &root.field("params").unwrap().body else {
            panic!()
        };
        assert_eq!(
            &text[entries[0].1.start..entries[0].1.start + 6],
            "\"fast\""
        );
        let uses = top.field("behaviors").unwrap();
        let Body::List(items) = &uses.body else {
            panic!()
        };
        assert_eq!(&text[items[0].start..items[0].start + 4], "Use(");
        let Body::Named(_, fields) = &items[0].body else {
            panic!()
        };
        let (_, with_at) = fields[1].key.clone().unwrap();
        assert_eq!(&text[with_at..with_at + 4], "with");
    }

    #[test]
    fn the_unclosed_bracket_is_found_where_it_opened() {
        let text = "(a: [1, 2,\n  b: \"]\" )";
        let u = unclosed(text).unwrap();
        assert_eq!((u.open, u.found), ('[', Some(')')));
        assert_eq!(u.opened_at, 4);
        assert_eq!(unclosed("(a: [1] /* [ */)"), None);
        assert_eq!(unclosed("(a: {").map(|u| u.open), Some('{'));
    }
}
