//! Recordings replayed (`wyrd sim --replay`), and a recording's inputs as a
//! script.

use super::*;

/// Where a replay first differed from its recording.
#[derive(Debug, Clone, PartialEq)]
pub struct Divergence {
    /// The agent tick.
    pub tick: u64,
    /// The node (path), when it is about one.
    pub node: Option<String>,
    /// What differed.
    pub what: String,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.node {
            Some(n) => write!(f, "tick {}: {n}: {}", self.tick, self.what),
            None => write!(f, "tick {}: {}", self.tick, self.what),
        }
    }
}

/// What a replay found.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayReport {
    /// Ticks replayed.
    pub ticks: usize,
    /// The first tick where the tree did not do what was recorded.
    pub divergence: Option<Divergence>,
    /// Whether the recording was made with another version of the tree.
    pub changed_tree: bool,
}

/// Re-runs a [`Recording`](crate::Recording) on `program` from its start
/// state and recorded inputs, checking tick by tick that the root status,
/// every node's status and rule flags and the action events are the ones
/// recorded. A recording of another version of the tree (content hash) is
/// refused unless `allow_changed`, which shows where the new tree
/// diverges.
pub fn replay(
    program: &Program,
    rec: &crate::Recording,
    allow_changed: bool,
) -> Result<ReplayReport, SimError> {
    replay_from(program, rec, allow_changed, rec.ticks.len(), true).map(|(r, _)| r)
}

/// The agent's tree state and blackboard after the first `ticks` ticks of
/// a recording (the inspector's timeline: the tree as it was at a tick).
pub fn rebuild(
    program: &Program,
    rec: &crate::Recording,
    ticks: usize,
) -> Result<(AgentState, Blackboard), SimError> {
    let (_, sim) = replay_from(program, rec, true, ticks, false)?;
    Ok((sim.state, sim.blackboard))
}

fn replay_from<'p>(
    program: &'p Program,
    rec: &crate::Recording,
    allow_changed: bool,
    limit: usize,
    check: bool,
) -> Result<(ReplayReport, Sim<'p>), SimError> {
    let bad = |m: String| SimError::Mismatch(m);
    if rec.format != crate::RECORDING_FORMAT {
        return Err(bad(format!(
            "recording format {} (this build reads {})",
            rec.format,
            crate::RECORDING_FORMAT
        )));
    }
    let changed_tree = tree_changed(program, rec, allow_changed)?;
    // Node indices of the recording, as this tree's (by path: the same
    // index when the tree did not change).
    let here = |i: u32| -> Option<u32> {
        if changed_tree {
            rec.paths.get(i as usize).and_then(|p| program.node(p))
        } else {
            Some(i)
        }
    };
    let from_start = rec.start.state.ticks == 0 && rec.start.actions.is_empty();
    let state = if changed_tree && from_start {
        // A changed tree starts fresh, as the recorded agent did.
        Some(AgentState::new(program, rec.start.state.seed))
    } else {
        AgentState::from_snapshot(program, &rec.start.state)
    }
    .ok_or_else(|| {
        bad("the recording's start state does not fit this tree (nodes, timers or impulses differ); a recording from the agent's first tick replays on a changed tree".into())
    })?;
    let mut sim = Sim::new(program, rec.start.state.seed).with_repeat(rec.repeat);
    sim.state = state;
    for (k, v) in &rec.start.blackboard {
        set_key(&mut sim, k, *v)?;
    }
    let tag_bits = |names: &[String]| {
        names
            .iter()
            .filter_map(|t| program.tag_names.iter().position(|x| x == t))
            .fold(0u64, |b, i| b | 1 << i)
    };
    sim.blackboard.set_tags(tag_bits(&rec.start.tags));
    for (name, v) in &rec.start.world {
        match v {
            Some(v) => sim.world.insert(name.clone(), *v),
            None => sim.world.remove(name),
        };
    }
    for (slot, answer) in program.predicates.iter().zip(&rec.start.predicates) {
        sim.predicates.insert(slot.name.clone(), *answer);
    }
    sim.actions.slots.clear();
    for (node, id, st, started_ms) in &rec.start.actions {
        let state = crate::recorder::action_state_of(st)
            .ok_or_else(|| bad(format!("unknown action state {st:?}")))?;
        let Some(node) = here(*node) else { continue };
        sim.actions.slots.push(crate::runtime::ActiveAction {
            // The program's id of the leaf's action (recordings made
            // before ids were 32-bit carry 64-bit ones).
            id: program
                .action_of(node)
                .map_or(crate::program::ActionId(*id as u32), |a| a.id),
            node: crate::runtime::slot_node(node),
            state,
            started_ms: *started_ms,
        });
    }
    let mut clock_us = rec.start.clock_us;
    let mut nodes: Vec<u8> = sim.state.mem.nodes().iter().map(|n| n.raw()).collect();
    let path = |i: u32| program.paths.get(i as usize).cloned();
    let recorded_path = |i: u32| rec.paths.get(i as usize).cloned().unwrap_or_default();
    for (n, t) in rec.ticks.iter().enumerate().take(limit) {
        for (k, v) in &t.set {
            set_key(&mut sim, k, *v)?;
        }
        if let Some(tags) = &t.tags {
            sim.blackboard.set_tags(tag_bits(tags));
        }
        for (name, v) in &t.world {
            match v {
                Some(v) => sim.world.insert(name.clone(), *v),
                None => sim.world.remove(name),
            };
        }
        for (name, _, answer) in &t.predicates {
            sim.predicates.insert(name.clone(), *answer);
        }
        for &(node, ok) in &t.reports {
            let Some(node) = here(node) else { continue };
            if let Some(a) = sim
                .actions
                .slots
                .iter_mut()
                .find(|a| a.leaf() == node && a.is_running())
            {
                if ok { a.succeed() } else { a.fail() }
            }
        }
        for st in &t.stimuli {
            let (Some(target), Some(&root)) =
                (program.node(&st.at), program.detached.get(&st.behavior))
            else {
                return Err(bad(format!(
                    "tick {}: no stimulus {} at {}",
                    t.tick, st.behavior, st.at
                )));
            };
            sim.state
                .insert_stimulus_at(program, target, root, st.priority, st.ms)
                .map_err(SimError::from)?;
        }
        if t.restart {
            sim.state.reset(program, &mut sim.actions);
        }
        let status = sim.step_counting(&mut clock_us, t.step_us, t.counted_in_us());
        if !check {
            continue;
        }
        if status.as_str() != t.status {
            return Ok((
                ReplayReport {
                    ticks: n + 1,
                    divergence: Some(Divergence {
                        tick: t.tick,
                        node: None,
                        what: format!("the root is {}, recorded {}", status.as_str(), t.status),
                    }),
                    changed_tree,
                },
                sim,
            ));
        }
        // Node changes and action events, by path (and action name). The
        // paused flag of a node that is not running is not compared: a
        // tick that skips its walk, or takes a report where the action
        // is, leaves it as the last walk left it, where a walk from the
        // root (the replay's) pauses the finished nodes it passes by.
        let norm = |b: u8| {
            if (b >> 4) & 7 == 1 {
                b
            } else {
                b & !crate::runtime::flag::PAUSED
            }
        };
        let mut changes = Vec::new();
        for (i, now) in sim.state.mem.nodes().iter().map(|s| s.raw()).enumerate() {
            if norm(now) != norm(nodes[i]) {
                changes.push((
                    path(i as u32).unwrap_or_default(),
                    norm(nodes[i]),
                    norm(now),
                ));
            }
            nodes[i] = now;
        }
        let recorded: Vec<(String, u8, u8)> = t
            .nodes
            .iter()
            .filter(|&&(_, a, b)| norm(a) != norm(b))
            .map(|&(i, a, b)| (recorded_path(i), norm(a), norm(b)))
            .collect();
        if changed_tree {
            changes.sort();
        }
        let mut want = recorded.clone();
        if changed_tree {
            want.sort();
        }
        for k in 0..changes.len().max(want.len()) {
            let (got, exp) = (changes.get(k), want.get(k));
            if got == exp {
                continue;
            }
            let text = |c: Option<&(String, u8, u8)>| {
                c.map_or("unchanged".to_owned(), |c| {
                    format!("{} -> {}", crate::node_text(c.1), crate::node_text(c.2))
                })
            };
            // Name the node whose change is missing or different.
            let node = match (got, exp) {
                (Some(g), Some(e)) if g.0 != e.0 => e.0.clone(),
                (_, Some(e)) => e.0.clone(),
                (Some(g), None) => g.0.clone(),
                (None, None) => String::new(),
            };
            let (g, e) = (
                changes.iter().find(|c| c.0 == node),
                want.iter().find(|c| c.0 == node),
            );
            return Ok((
                ReplayReport {
                    ticks: n + 1,
                    divergence: Some(Divergence {
                        tick: t.tick,
                        node: Some(node),
                        what: format!("recorded {}, replayed {}", text(e), text(g)),
                    }),
                    changed_tree,
                },
                sim,
            ));
        }
        let events: Vec<(String, String, String)> = sim
            .trace
            .actions
            .iter()
            .map(|&(node, e)| {
                (
                    path(node).unwrap_or_default(),
                    crate::recorder::event_name(e).to_owned(),
                    program
                        .action_of(node)
                        .map_or_else(String::new, |a| a.name().to_owned()),
                )
            })
            .collect();
        let recorded: Vec<(String, String, String)> = t
            .actions
            .iter()
            .map(|(i, e, a)| (recorded_path(*i), e.clone(), a.clone()))
            .collect();
        if events != recorded {
            let k = events
                .iter()
                .zip(&recorded)
                .position(|(a, b)| a != b)
                .unwrap_or(events.len().min(recorded.len()));
            let show = |e: Option<&(String, String, String)>| {
                e.map_or("nothing".to_owned(), |e| {
                    format!("{} {} ({})", e.2, e.1, e.0)
                })
            };
            let node = recorded.get(k).or(events.get(k)).map(|e| e.0.clone());
            return Ok((
                ReplayReport {
                    ticks: n + 1,
                    divergence: Some(Divergence {
                        tick: t.tick,
                        node,
                        what: format!(
                            "action events: recorded {}, replayed {}",
                            show(recorded.get(k)),
                            show(events.get(k))
                        ),
                    }),
                    changed_tree,
                },
                sim,
            ));
        }
        // Compared by path: the recording's paths, the replayed tree's.
        let replayed_path = |i: u32| program.path(i).to_owned();
        let decided: Vec<ChoiceByPath> = crate::recorder::recorded_choices(program, &sim.trace)
            .iter()
            .map(|c| ChoiceByPath::of(c, &replayed_path))
            .collect();
        let recorded: Vec<ChoiceByPath> = t
            .utility
            .iter()
            .map(|c| ChoiceByPath::of(c, &recorded_path))
            .collect();
        // A skipped tick decided nothing anew in the game; the replay
        // walks every tick (its decisions there are the kept ones).
        if !t.skipped && decided != recorded {
            let k = decided
                .iter()
                .zip(&recorded)
                .position(|(a, b)| a != b)
                .unwrap_or(decided.len().min(recorded.len()));
            let show =
                |c: Option<&ChoiceByPath>| c.map_or("nothing".to_owned(), ChoiceByPath::text);
            let node = recorded.get(k).or(decided.get(k)).map(|c| c.node.clone());
            return Ok((
                ReplayReport {
                    ticks: n + 1,
                    divergence: Some(Divergence {
                        tick: t.tick,
                        node,
                        what: format!(
                            "utility: recorded {}, replayed {}",
                            show(recorded.get(k)),
                            show(decided.get(k))
                        ),
                    }),
                    changed_tree,
                },
                sim,
            ));
        }
    }
    Ok((
        ReplayReport {
            ticks: rec.ticks.len().min(limit),
            divergence: None,
            changed_tree,
        },
        sim,
    ))
}

/// A `Utility` decision with nodes named by path: the recorded and the
/// replayed tree may number their nodes differently.
#[derive(PartialEq)]
struct ChoiceByPath {
    node: String,
    scores: Vec<(String, Option<f32>)>,
    chosen: Option<String>,
    why: String,
}

impl ChoiceByPath {
    fn of(c: &crate::RecordedChoice, path: &dyn Fn(u32) -> String) -> Self {
        ChoiceByPath {
            node: path(c.node),
            scores: c.scores.iter().map(|&(n, s)| (path(n), s)).collect(),
            chosen: c.chosen.map(path),
            why: c.why.clone(),
        }
    }

    /// `root: root/eat=0.9 root/sleep=- -> root/eat (kept)` (scores
    /// exactly, to show what differs).
    fn text(&self) -> String {
        let scores: Vec<String> = self
            .scores
            .iter()
            .map(|(n, s)| format!("{n}={}", s.map_or("-".into(), |s| s.to_string())))
            .collect();
        let chosen = self.chosen.as_deref().unwrap_or("none");
        format!(
            "{}: {} -> {chosen} ({})",
            self.node,
            scores.join(" "),
            self.why
        )
    }
}

fn set_key(sim: &mut Sim<'_>, key: &str, value: Option<Value>) -> Result<(), SimError> {
    let k = sim.program.bb_key(key).ok_or_else(|| {
        SimError::Mismatch(format!("the tree declares no blackboard key {key:?}"))
    })?;
    match value {
        Some(v) => sim.blackboard.set_index(k, v),
        None => sim.blackboard.clear_index(k),
    }
    Ok(())
}

/// Whether `program` is another version of the tree `rec` was recorded
/// on (content hash); an error unless `allow_changed`.
fn tree_changed(
    program: &Program,
    rec: &crate::Recording,
    allow_changed: bool,
) -> Result<bool, SimError> {
    let hash = format!("{:016x}", program.content_hash);
    let changed = hash != rec.tree_hash;
    if changed && !allow_changed {
        return Err(SimError::Mismatch(format!(
            "the recording is of {} with content hash {}; this tree's is {hash}: it changed since (replay with --allow-changed to see where it diverges)",
            rec.tree, rec.tree_hash
        )));
    }
    Ok(changed)
}

/// A recording's inputs as a sim script (`wyrd sim --replay FILE
/// --emit-script`): a regression test of what the agent did. Only a
/// recording that starts at the agent's first tick replays exactly as a
/// script (a script starts from a fresh agent); others are refused, as is
/// a recording of another version of the tree unless `allow_changed`.
pub fn recording_script(
    program: &Program,
    rec: &crate::Recording,
    allow_changed: bool,
) -> Result<String, SimError> {
    // Another tree's leaves are not this one's: refused as a replay is.
    tree_changed(program, rec, allow_changed)?;
    if rec.start.state.ticks != 0 {
        return Err(SimError::Mismatch(format!(
            "the recording starts after agent tick {} (its first tick is {}: its ring dropped older ticks, or it began mid-run: an agent restored from a save continues its saved run); a script starts from a fresh agent: record from the agent's first tick (a game with a save: start it without the save)",
            rec.start.state.ticks,
            rec.ticks
                .first()
                .map_or(rec.start.state.ticks + 1, |t| t.tick)
        )));
    }
    // A script ticks at one rate, counting durations in its ticks.
    let first_us = rec.ticks.first().map_or(0, |t| t.step_us);
    if let Some(t) = rec
        .ticks
        .iter()
        .find(|t| t.step_us != first_us || t.count_us != 0)
    {
        return Err(SimError::Mismatch(format!(
            "tick {} of the recording advanced {} µs, counting in steps of {} µs, against {} µs per tick before (an agent of a tick tier, or a changed rate); a script ticks at one rate: record an agent without a tier",
            t.tick,
            t.step_us,
            t.counted_in_us(),
            first_us
        )));
    }
    let mut out = format!(
        "// From a recording of {} ({} ticks). Inputs only: replay checks the outputs.\n(\n    seed: {},\n    hz: {:.3},\n    ticks: {},\n    mode: {},\n    events: [\n",
        rec.tree,
        rec.ticks.len(),
        rec.start.state.seed,
        rec.ticks
            .first()
            .map_or(30.0, |t| 1e6 / f64::from(t.step_us.max(1))),
        rec.ticks.len(),
        if rec.repeat { "Repeat" } else { "Once" },
    );
    let value = |v: &Value| match v {
        Value::Entity(e) => format!("Entity({})", e.index_u32()),
        Value::Vec2(v) => format!("({:?}, {:?})", v.x, v.y),
        Value::Vec3(v) => format!("Vec3({:?}, {:?}, {:?})", v.x, v.y, v.z),
        Value::Float(f) => format!("{f:?}"),
        other => other.to_string(),
    };
    let mut tags: Vec<String> = rec.start.tags.clone();
    // Where each stimulus behavior was inserted last: its leaves are named
    // under that node, as the trace, the checker and `finish` name them
    // (`root/flee/Run`, not the program's `~flee/Run`).
    let mut inserted: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    let shown = |inserted: &std::collections::HashMap<String, String>, node: u32| {
        let raw = program
            .paths
            .get(node as usize)
            .cloned()
            .unwrap_or_default();
        let Some(own) = raw.strip_prefix('~') else {
            return raw;
        };
        let behavior = own.split('/').next().unwrap_or(own);
        match inserted.get(behavior) {
            Some(at) => format!("{at}/{own}"),
            None => raw,
        }
    };
    let mut emit = |tick: u64, line: String| {
        out.push_str(&format!("        (tick: {tick}, {line}),\n"));
    };
    for (n, t) in rec.ticks.iter().enumerate() {
        let tick = n as u64 + 1;
        let start = (n == 0).then_some(&rec.start);
        if let Some(s) = start {
            for (k, v) in &s.blackboard {
                if let Some(v) = v
                    && program
                        .bb_key(k)
                        .and_then(|i| program.bb_defaults[i as usize])
                        != Some(*v)
                {
                    emit(tick, format!("set: ({k:?}, {})", value(v)));
                }
            }
            for t in &s.tags {
                emit(tick, format!("tag: ({t:?}, true)"));
            }
            for (k, v) in &s.world {
                if let Some(v) = v {
                    emit(tick, format!("world: ({k:?}, {})", value(v)));
                }
            }
            for (p, a) in program.predicates.iter().zip(&s.predicates) {
                if *a {
                    emit(tick, format!("predicate: ({:?}, true)", p.name));
                }
            }
        }
        for (k, v) in &t.set {
            match v {
                Some(v) => emit(tick, format!("set: ({k:?}, {})", value(v))),
                None => emit(tick, format!("unset: {k:?}")),
            }
        }
        if let Some(now) = &t.tags {
            for gone in tags.iter().filter(|x| !now.contains(x)) {
                emit(tick, format!("tag: ({gone:?}, false)"));
            }
            for new in now.iter().filter(|x| !tags.contains(x)) {
                emit(tick, format!("tag: ({new:?}, true)"));
            }
            tags.clone_from(now);
        }
        for (k, v) in &t.world {
            if let Some(v) = v {
                emit(tick, format!("world: ({k:?}, {})", value(v)));
            }
        }
        for (name, _, a) in &t.predicates {
            emit(tick, format!("predicate: ({name:?}, {a})"));
        }
        for st in &t.stimuli {
            inserted.insert(st.behavior.clone(), st.at.clone());
        }
        for &(node, ok) in &t.reports {
            emit(
                tick,
                format!(
                    "finish: ({:?}, {})",
                    shown(&inserted, node),
                    if ok { "Success" } else { "Failure" }
                ),
            );
        }
        for st in &t.stimuli {
            emit(
                tick,
                format!(
                    "stimulus: (at: {:?}, behavior: {:?}, priority: {}, seconds: {:?})",
                    st.at,
                    st.behavior,
                    st.priority,
                    st.ms as f32 / 1000.0
                ),
            );
        }
        if t.restart {
            emit(tick, "restart: true".into());
        }
    }
    out.push_str("    ],\n)\n");
    Ok(out)
}
