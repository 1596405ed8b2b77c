//! Laying a tree out flat: one node at a time, depth first.

use std::collections::HashMap;

use super::{BtError, BtProblem, Compiler, ParsedFile, resolve};
use crate::def::{Check, NodeDef};
use crate::kind::{AuxInit, CursorInit};
use crate::program::{Kind, NONE, Node};

/// Levels of nodes and of behaviors placed in behaviors a tree may nest
/// (a real tree has a few tens).
pub(crate) const MAX_NESTING: usize = 128;

/// Nodes a tree may lay out, its behaviors' copies counted (a real tree
/// has tens to hundreds).
pub(crate) const MAX_NODES: usize = 20_000;

// What the runtime packs relies on the limit: an action slot's node is a
// `u16` (`ActiveAction::node`), and an agent's state packs its node count,
// its cursors' end (node states in bytes, then at most a cursor per node,
// in u16s) and its aux words' start into 15-bit fields (`StateMem`).
const _: () = assert!(
    MAX_NODES.div_ceil(2) + MAX_NODES < 1 << 15,
    "the runtime's 15-bit fields"
);

type TagMasks = (u64, u64, u64);

/// A check as short text (`?ammo<10`, `?any`): automatic names and the
/// inspector's guard line.
pub(crate) fn check_text(c: &Check) -> String {
    match c {
        Check::Is(k) => format!("?{k}"),
        Check::IsNot(k) => format!("?!{k}"),
        Check::Bb(k, op, v) => format!("?{k}{}{}", op.symbol(), v.text()),
        Check::Predicate(p, _) => format!("?{p}"),
        Check::HasTag(t) => format!("?#{t}"),
        Check::World(k, op, v) => format!("?{k}{}{v}", op.symbol()),
        Check::All(_) => "?all".into(),
        Check::Any(_) => "?any".into(),
        Check::Not(c) => format!("?not({})", check_text(c).trim_start_matches('?')),
    }
}

/// A check as tools show it (the guard line of `wyrd graph`, the
/// inspector and the remote monitor): [`check_text`] with what `Any`,
/// `All` and a predicate's arguments hold (`?any(?grenade_near, ?health_low)`,
/// `?within(meters=8, of={target})`), where a node's automatic name keeps
/// the short form (paths must not change).
pub(crate) fn check_display(c: &Check) -> String {
    let list = |name: &str, cs: &[Check]| {
        let parts: Vec<String> = cs.iter().map(check_display).collect();
        format!("?{name}({})", parts.join(", "))
    };
    match c {
        Check::All(cs) => list("all", cs),
        Check::Any(cs) => list("any", cs),
        Check::Not(c) => format!("?not({})", check_display(c).trim_start_matches('?')),
        // Told from a blackboard check of the same name (both read
        // `?GOLD>=5` in a drawing).
        Check::World(k, op, v) => format!("?World({k}{}{v})", op.symbol()),
        Check::Predicate(p, args) if !args.is_empty() => {
            let args: Vec<String> = args
                .iter()
                .map(|(k, v)| format!("{k}={}", v.text()))
                .collect();
            format!("?{p}({})", args.join(", "))
        }
        other => check_text(other),
    }
}

impl<'a> Compiler<'a> {
    pub(crate) fn ms(&self, file: &str, def: &NodeDef, seconds: f32) -> Result<u32, BtError> {
        if !seconds.is_finite() || seconds < 0.0 {
            return Err(self.err_node(file, def, BtProblem::BadDuration(seconds)));
        }
        Ok((seconds * 1000.0).round().min(u32::MAX as f32) as u32)
    }

    pub(crate) fn find_behavior(&self, file: &str, name: &str) -> Option<&'a NodeDef> {
        let files: &'a HashMap<String, ParsedFile> = self.files;
        files
            .get(file)?
            .def
            .behaviors
            .iter()
            .find(|b| b.common().name == Some(name))
    }

    fn auto_segment(def: &NodeDef) -> String {
        if let Some(n) = def.common().name {
            return n.to_owned();
        }
        match def {
            NodeDef::Use(u) => u.behavior.clone(),
            NodeDef::Impulse(i) => format!("impulse:{}", i.behavior),
            NodeDef::Action(a) => a.action.clone(),
            NodeDef::Condition(c) | NodeDef::Rule(c) => check_text(&c.check),
            NodeDef::CheckWorldStateFlags(c) => {
                let names: Vec<&str> = c.flags.iter().map(|(n, _)| n.as_str()).collect();
                format!("?{}", names.join("&"))
            }
            NodeDef::CheckWorldStateCounters(c) => {
                let names: Vec<String> = c
                    .counters
                    .iter()
                    .map(|(n, op, v)| format!("{n}{}{v}", op.symbol()))
                    .collect();
                format!("?{}", names.join("&"))
            }
            NodeDef::Threshold(t) => format!("threshold{}", check_text(&t.check)),
            NodeDef::Custom(c) => c.kind.clone(),
            other => {
                let k = other.kind_name();
                let mut s = String::new();
                for (i, ch) in k.chars().enumerate() {
                    if ch.is_uppercase() && i > 0 {
                        s.push('_');
                    }
                    s.push(ch.to_ascii_lowercase());
                }
                s
            }
        }
    }

    /// Segments for children: explicit names as given, automatic ones made
    /// unique among siblings with `#2`, `#3`...
    fn segments(children: &[NodeDef]) -> Vec<String> {
        let explicit: Vec<Option<&str>> = children
            .iter()
            .map(|c| match c {
                NodeDef::Use(u) => u.name.as_deref(),
                other => other.common().name,
            })
            .collect();
        let mut used: HashMap<String, usize> = HashMap::new();
        for n in explicit.iter().flatten() {
            used.insert((*n).to_owned(), 1);
        }
        children
            .iter()
            .zip(&explicit)
            .map(|(c, e)| match e {
                Some(n) => (*n).to_owned(),
                None => {
                    let base = Self::auto_segment(c);
                    let count = used.entry(base.clone()).or_insert(0);
                    *count += 1;
                    if *count == 1 {
                        base
                    } else {
                        format!("{base}#{count}")
                    }
                }
            })
            .collect()
    }

    /// A child's result: its node, or, when the compiler collects every
    /// error (`wyrd check`), none and the error noted, so that its
    /// siblings are still compiled. The program is then never used: a
    /// failed child may have left nodes of its own behind.
    pub(super) fn kept(&mut self, kid: Result<u32, BtError>) -> Result<Option<u32>, BtError> {
        match kid {
            Ok(k) => Ok(Some(k)),
            // A limit met: the rest of the tree would meet it again at
            // every level (hundreds of errors for one chain); it stops.
            Err(e) if matches!(e.problem, BtProblem::TooDeep(_) | BtProblem::TooLarge(_)) => Err(e),
            Err(e) if self.errors.is_some() => {
                // A behavior's root that failed before taking the flag
                // would hand it to the next sibling.
                self.entering_behavior = false;
                self.note(e);
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    pub(super) fn emit(
        &mut self,
        def: &NodeDef,
        file: &str,
        parent: u32,
        seg: String,
        depth: u16,
        extra_tags: TagMasks,
    ) -> Result<u32, BtError> {
        // Errors while compiling this node point into it.
        let prev = self.enter_node(def);
        let result = self.emit_node(def, file, parent, seg, depth, extra_tags);
        self.leave_node(prev);
        result
    }

    fn emit_node(
        &mut self,
        def: &NodeDef,
        file: &str,
        parent: u32,
        seg: String,
        depth: u16,
        extra_tags: TagMasks,
    ) -> Result<u32, BtError> {
        let common = def.common();
        // The layout recurses per level and per behavior placed in a
        // behavior: a chain of hundreds overflowed the loader's stack, and
        // behaviors placed in each other twice at every level doubled the
        // tree each level (sixteen levels did not load in a minute).
        if usize::from(depth) + self.stack.len() > MAX_NESTING {
            return Err(self.err_node(file, def, BtProblem::TooDeep(MAX_NESTING)));
        }
        if self.p.nodes.len() >= MAX_NODES {
            return Err(self.err_node(file, def, BtProblem::TooLarge(MAX_NODES)));
        }
        // A name is a segment of the node's path: `/` would split it, an
        // empty one makes `root//x`, `~` marks a behavior's own nodes.
        if let Some(name) = common.name
            && (name.is_empty() || name.contains('/') || name.starts_with('~'))
        {
            return Err(self.err_part(file, "name", name, BtProblem::BadNodeName(name.to_owned())));
        }
        let tags = (
            self.tag_mask(file, common.tags)? | extra_tags.0,
            self.tag_mask(file, common.any_tags)? | extra_tags.1,
            self.tag_mask(file, common.not_tags)? | extra_tags.2,
        );
        // A behavior's root may carry the score its uses under a Utility
        // take; anywhere else a score would silently count for nothing.
        let under_utility =
            parent != NONE && matches!(self.p.nodes[parent as usize].kind, Kind::Utility { .. });
        if common.score.is_some() && !under_utility && !self.entering_behavior {
            let parent_kind = if parent == NONE {
                "none: it is the root"
            } else {
                self.p.nodes[parent as usize].kind.name()
            };
            let problem = BtProblem::ScoreOutsideUtility(parent_kind.to_owned());
            return Err(self.err_part(file, "score", "score", problem));
        }
        if let NodeDef::Use(u) = def {
            let target_file = u
                .file
                .as_ref()
                .map_or_else(|| file.to_owned(), |f| resolve(file, f));
            let key = (target_file.clone(), u.behavior.clone());
            if let Some(i) = self.stack.iter().position(|s| *s == key) {
                let mut chain: Vec<String> =
                    self.stack[i..].iter().map(|(_, b)| b.clone()).collect();
                chain.push(u.behavior.clone());
                return Err(self.err_ref(file, &u.behavior, BtProblem::Cycle(chain.join(" -> "))));
            }
            let Some(bdef) = self.find_behavior(&target_file, &u.behavior) else {
                return Err(self.err_ref(
                    file,
                    &u.behavior,
                    BtProblem::UnknownBehavior(u.behavior.clone()),
                ));
            };
            let at = super::params::Placement {
                file,
                place: u.name.as_deref(),
                target_file: &target_file,
                behavior: &u.behavior,
            };
            let scope = self.bind(&at, bdef.common().parameters, &u.with, false)?;
            self.stack.push(key.clone());
            self.scopes.push(scope);
            self.entering_behavior = true;
            let idx = self.emit(bdef, &target_file, parent, seg, depth, tags);
            self.scopes.pop();
            self.stack.pop();
            let idx = idx?;
            if !self.detached {
                self.native.entry(key).or_default().push(idx);
            }
            return Ok(idx);
        }

        if !std::mem::take(&mut self.entering_behavior) && !common.parameters.is_empty() {
            return Err(self.err_node(file, def, BtProblem::ParametersOnNode));
        }
        let idx = self.p.nodes.len() as u32;
        let path = if parent == NONE {
            seg
        } else {
            format!("{}/{}", self.p.paths[parent as usize], seg)
        };
        if self.p.path_index.contains_key(&path) {
            let name = path.rsplit('/').next().unwrap_or(&path).to_owned();
            return Err(self.err_nth(file, &name, 1, BtProblem::DuplicatePath(path)));
        }
        self.p.path_index.insert(path.clone(), idx);
        self.p.paths.push(path);
        self.p.nodes.push(Node {
            kind: Kind::Succeed,
            parent,
            end: idx + 1,
            first_child: 0,
            child_count: 0,
            depth,
            tags_all: tags.0,
            tags_any: tags.1,
            tags_not: tags.2,
            tagged: tags.0 | tags.1 | tags.2 != 0,
            does_complete: true,
            instant: false,
            guard_len: 0,
            aux: NONE,
            cursor: NONE,
            guard: NONE,
            facts: crate::program::NodeFacts::of(&Kind::Succeed),
        });

        // The node's own definition, children left out, with the
        // bindings of the behavior it is in: what a reload compares.
        let mut own = format!("{def:?}");
        for (child, seg) in def.children().iter().zip(Self::segments(def.children())) {
            // Children by name, in order: a reorder changes the parent.
            own = own.replacen(&format!("{child:?}"), &format!("<{seg}>"), 1);
        }
        if let Some(scope) = self.scopes.last() {
            // A key by its name: one declared before it moves its index,
            // not what the binding means.
            let mut b: Vec<String> = scope
                .iter()
                .map(|(k, v)| match v {
                    crate::program::Param::Key { key, ty } => {
                        let name = self.p.bb_keys.get(usize::from(*key));
                        format!("{k}={{{}}}:{ty:?}", name.map_or("?", String::as_str))
                    }
                    // As before keys were named: constants keep signatures.
                    c @ crate::program::Param::Const(_) => format!("{k}={c:?}"),
                })
                .collect();
            b.sort();
            own.push_str(&b.join(","));
        }
        self.p.signatures.push(crate::registry::fnv64(&own));
        // What the node checks, for tools (its guard line).
        let checks: Vec<String> = match def {
            NodeDef::Condition(c) | NodeDef::Rule(c) => vec![check_display(&c.check)],
            NodeDef::Guard(g) => g.when.iter().map(check_display).collect(),
            NodeDef::Impulse(i) => i.when.iter().map(check_display).collect(),
            NodeDef::Threshold(t) => vec![check_display(&t.check)],
            // With the values they check (the automatic name has only the
            // names: `?NPC_DRONE_SPK_01` read as the flag being true).
            NodeDef::CheckWorldStateFlags(c) => c
                .flags
                .iter()
                .map(|(f, v)| {
                    check_display(&Check::World(
                        f.clone(),
                        crate::value::Op::Eq,
                        crate::Value::Bool(*v),
                    ))
                })
                .collect(),
            NodeDef::CheckWorldStateCounters(c) => c
                .counters
                .iter()
                .map(|(n, op, v)| {
                    check_display(&Check::World(n.clone(), *op, crate::Value::Int(*v)))
                })
                .collect(),
            _ => Vec::new(),
        };
        self.p.check_texts.push(checks.join(" & "));
        let mut in_place_impulse: Option<super::InPlace> = None;
        let kind = super::lower::lower(self, def, file, idx, &mut in_place_impulse)?;
        // Arity and per-agent state come from the kind's table.
        let info = kind.info();
        if !matches!(kind, Kind::Impulse { .. } | Kind::Custom { .. }) {
            self.check_arity(file, def, info.min_children, info.max_children)?;
        }
        if info.aux != AuxInit::None {
            self.p.nodes[idx as usize].aux = self.p.aux_count;
            self.p.aux_count += 1;
        }
        if info.cursor != CursorInit::None {
            self.p.nodes[idx as usize].cursor = self.p.cursor_count;
            self.p.cursor_count += 1;
        }
        self.p.nodes[idx as usize].kind = kind;
        self.p.nodes[idx as usize].facts = crate::program::NodeFacts::of(&kind);

        // Children.
        let mut kids = Vec::new();
        if let Some(super::InPlace {
            file: bfile,
            behavior,
            with,
        }) = in_place_impulse
        {
            let use_def = NodeDef::Use(crate::def::UseDef {
                name: None,
                tags: vec![],
                any_tags: vec![],
                not_tags: vec![],
                parameters: Default::default(),
                score: None,
                behavior: behavior.clone(),
                file: None,
                with,
            });
            let kid = self.emit(&use_def, &bfile, idx, behavior, depth + 1, (0, 0, 0));
            kids.extend(self.kept(kid)?);
        } else {
            let segs = Self::segments(def.children());
            for (child, seg) in def.children().iter().zip(segs) {
                let kid = self.emit(child, file, idx, seg, depth + 1, (0, 0, 0));
                kids.extend(self.kept(kid)?);
            }
        }
        let first_child = self.p.children.len() as u32;
        self.p.children.extend(&kids);
        let end = self.p.nodes.len() as u32;
        let child_nodes: Vec<&Node> = kids.iter().map(|&k| &self.p.nodes[k as usize]).collect();
        let all_instant = !child_nodes.is_empty() && child_nodes.iter().all(|n| n.instant);
        let all_done = child_nodes.iter().all(|n| n.does_complete);
        let any_done = child_nodes.iter().any(|n| n.does_complete);
        let guard_len = child_nodes.iter().take_while(|n| n.instant).count() as u16;
        let facts = crate::kind::ChildFacts {
            count: child_nodes.len(),
            all_instant,
            all_done,
            any_done,
            done: child_nodes.iter().filter(|n| n.does_complete).count(),
            later_done: child_nodes.iter().skip(1).any(|n| n.does_complete),
            redirect: matches!(kind, Kind::Impulse { .. }) && kids.is_empty(),
        };
        let (instant, does_complete) = kind.completes(&facts);
        let n = &mut self.p.nodes[idx as usize];
        n.first_child = first_child;
        n.child_count = kids.len() as u16;
        n.end = end;
        n.instant = instant;
        n.does_complete = does_complete;
        n.guard_len = if kind.info().leading_guards {
            guard_len
        } else {
            0
        };
        Ok(idx)
    }
}
