//! The crate's modules depend on each other one way (issue 26): no import
//! circle. Read from the source as a reviewer would: every `crate::x` path
//! in code (`use` lines and inline paths; comments and strings left out),
//! a path through a root re-export (`crate::Name`) counted as the module
//! that defines `Name`. A cycle fails the test and names the modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Code without comments and string literals (so doc links and messages
/// that mention `crate::...` are not imports).
fn code_of(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if src[i..].starts_with("//") {
            i = src[i..].find('\n').map_or(b.len(), |n| i + n);
        } else if src[i..].starts_with("/*") {
            i = src[i..].find("*/").map_or(b.len(), |n| i + n + 2);
        } else if src[i..].starts_with("r#\"") {
            i = src[i + 3..].find("\"#").map_or(b.len(), |n| i + 3 + n + 2);
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if b[i] == b'\'' && i + 2 < b.len() && b[i + 2] == b'\'' {
            i += 3;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// The identifiers after each `crate::` in the code (`use crate::{a, b}`
/// gives both).
fn crate_paths(code: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        if code[..at].ends_with('$') {
            continue; // `$crate::` in a macro expands in the user's crate
        }
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            found.extend(inner.split(',').map(|p| ident(p.trim())));
        } else {
            found.push(ident(rest));
        }
    }
    found
}

/// The code without its `#[cfg(test)]` items (the attribute through the
/// end of the item's braces, or its `;`).
fn without_test_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let Some(open) = item.find(['{', ';']) else {
            return out;
        };
        if item.as_bytes()[open] == b';' {
            rest = &item[open + 1..];
            continue;
        }
        let mut depth = 0;
        let mut end = item.len();
        for (i, c) in item[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// Files that are test modules as a whole: declared `#[cfg(test)] mod x;`
/// in a file beside them (`x.rs`, or `x/mod.rs`).
fn test_only_files(files: &[(String, std::path::PathBuf)]) -> BTreeSet<std::path::PathBuf> {
    let mut found = BTreeSet::new();
    for (_, path) in files {
        let code = code_of(&std::fs::read_to_string(path).unwrap());
        let dir = path.parent().unwrap();
        for (at, _) in code.match_indices("#[cfg(test)]") {
            let rest = code[at + "#[cfg(test)]".len()..].trim_start();
            let Some(decl) = rest.strip_prefix("mod ") else {
                continue;
            };
            let name: String = decl
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if decl[name.len()..].trim_start().starts_with(';') {
                found.insert(dir.join(format!("{name}.rs")));
                found.insert(dir.join(&name).join("mod.rs"));
            }
        }
    }
    found
}

#[test]
fn test_items_are_left_out_and_the_code_after_them_is_read() {
    let code = "use crate::a::X;\n#[cfg(test)]\nmod tests { use crate::b::Y; fn f() { } }\nuse crate::c::Z;\n#[cfg(test)]\nuse crate::d::W;\n";
    let kept = without_test_items(code);
    assert_eq!(crate_paths(&kept), ["a", "c"], "{kept}");
}

#[test]
fn the_modules_of_wyrd_bt_depend_on_each_other_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = code_of(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    // Root re-exports: `pub use module::{A, B};` makes `crate::A` module's.
    let mut defined_in: BTreeMap<String, String> = BTreeMap::new();
    for stmt in lib.split(';') {
        let Some(rest) = stmt.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, names)) = rest.split_once("::") else {
            continue;
        };
        for name in names.trim_matches(|c| c == '{' || c == '}').split(',') {
            let name = name.trim().split("::").last().unwrap_or("").trim();
            if !name.is_empty() {
                defined_in.insert(name.to_owned(), module.trim().to_owned());
            }
        }
    }
    // Top-level modules: `src/x.rs` or `src/x/` (its files are the module).
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "lib" {
            continue;
        }
        if path.is_dir() {
            for f in std::fs::read_dir(&path).unwrap() {
                files.push((name.clone(), f.unwrap().path()));
            }
        } else {
            files.push((name, path));
        }
    }
    let modules: BTreeSet<String> = files.iter().map(|(m, _)| m.clone()).collect();
    let test_only = test_only_files(&files);
    for (module, path) in &files {
        if test_only.contains(path) {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(path).unwrap());
        // Tests inside a module may reach anything: each `#[cfg(test)]`
        // item is left out (its braces matched), wherever it stands.
        let code = without_test_items(&code);
        for first in crate_paths(&code) {
            let target = if modules.contains(&first) {
                first
            } else if let Some(m) = defined_in.get(&first) {
                m.clone()
            } else {
                continue; // the prelude, a macro, the crate root itself
            };
            if &target != module {
                edges.entry(module.clone()).or_default().insert(target);
            }
        }
    }
    // A module that reaches itself through its imports is in a circle.
    let reaches = |from: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_owned()];
        while let Some(m) = todo.pop() {
            for t in edges.get(&m).into_iter().flatten() {
                if seen.insert(t.clone()) {
                    todo.push(t.clone());
                }
            }
        }
        seen
    };
    let circles: Vec<String> = modules
        .iter()
        .filter(|m| reaches(m).contains(*m))
        .map(|m| {
            let back: Vec<&String> = edges[m].iter().filter(|t| reaches(t).contains(m)).collect();
            format!("{m} -> {back:?} -> ... -> {m}")
        })
        .collect();
    assert!(
        circles.is_empty(),
        "import circles in wyrd_bt:\n{}\nedges: {edges:#?}",
        circles.join("\n")
    );
    // The ground floor imports nothing of the crate.
    for floor in ["status", "kind", "value"] {
        assert!(
            !edges.contains_key(floor),
            "{floor} imports {:?}",
            edges[floor]
        );
    }
}
