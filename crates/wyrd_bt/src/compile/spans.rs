//! Where each node of the parsed files is: the outline of each file
//! (`outline`) walked beside its parsed tree, so that an error about a node
//! or one of its values points at that node, not at the first place in the
//! file where the same text appears.

use std::collections::HashMap;

use super::ParsedFile;
use super::outline::{Body, Item, outline};
use crate::def::NodeDef;

/// One node's place in its file: where it starts, and where its fields and
/// the entries of its maps are.
#[derive(Debug, Clone)]
pub(crate) struct NodeSpan {
    /// The file.
    pub file: String,
    /// Byte offset of the node's kind name.
    pub start: usize,
    /// `"action"` (the field's value), `"action:key"` (the field's name),
    /// `"params/speed"` (an entry's value), `"params/speed:key"`; strings
    /// point at their first character inside the quotes.
    pub parts: Vec<(String, usize)>,
}

impl NodeSpan {
    /// A part's offset.
    pub fn part(&self, part: &str) -> Option<usize> {
        self.parts
            .iter()
            .find(|(p, _)| p == part)
            .map(|(_, at)| *at)
    }
}

/// A node's address: its identity while the parsed files are borrowed.
pub(crate) fn node_id(def: &NodeDef) -> usize {
    std::ptr::from_ref(def) as usize
}

fn at(item: &Item) -> usize {
    match item.body {
        Body::Str(_) => item.start + 1,
        _ => item.start,
    }
}

fn parts_of(item: &Item) -> Vec<(String, usize)> {
    let mut parts = Vec::new();
    let Body::Named(_, fields) = &item.body else {
        return parts;
    };
    for f in fields {
        let Some((key, key_at)) = &f.key else {
            continue;
        };
        parts.push((key.clone(), at(&f.value)));
        parts.push((format!("{key}:key"), *key_at));
        if let Body::Map(entries) = &f.value.body {
            for (k, v) in entries {
                if let Body::Str(name) = &k.body {
                    parts.push((format!("{key}/{name}"), at(v)));
                    parts.push((format!("{key}/{name}:key"), at(k)));
                }
            }
        }
    }
    parts
}

/// Records `def` at `item` and its children at the items of its `children`
/// or `child` field; stops where the two disagree (a kind this outline does
/// not follow), leaving those nodes to be placed by name.
fn walk(file: &str, def: &NodeDef, item: &Item, out: &mut HashMap<usize, NodeSpan>) {
    let item = item.unwrapped();
    let Some(name) = item.name() else {
        return;
    };
    let kind = def.kind_name();
    if name != kind && !(name == "Fallback" && kind == "Selector") {
        return;
    }
    out.insert(
        node_id(def),
        NodeSpan {
            file: file.to_owned(),
            start: item.start,
            parts: parts_of(item),
        },
    );
    let children = def.children();
    if children.is_empty() {
        return;
    }
    let items: Vec<&Item> = match (item.field("children"), item.field("child")) {
        (
            Some(Item {
                body: Body::List(list),
                ..
            }),
            _,
        ) => list.iter().collect(),
        (_, Some(one)) => vec![one],
        _ => return,
    };
    if items.len() != children.len() {
        return;
    }
    for (child, it) in children.iter().zip(items) {
        walk(file, child, it, out);
    }
}

/// The spans of every node of every file.
pub(crate) fn node_spans(files: &HashMap<String, ParsedFile>) -> HashMap<usize, NodeSpan> {
    let mut out = HashMap::new();
    for (name, pf) in files {
        let Some(top) = outline(&pf.text) else {
            continue;
        };
        let top = top.unwrapped();
        if let Some(root) = top.field("root") {
            walk(name, &pf.def.root, root, &mut out);
        }
        if let Some(Item {
            body: Body::List(items),
            ..
        }) = top.field("behaviors")
            && items.len() == pf.def.behaviors.len()
        {
            for (def, item) in pf.def.behaviors.iter().zip(items) {
                walk(name, def, item, &mut out);
            }
        }
    }
    out
}
