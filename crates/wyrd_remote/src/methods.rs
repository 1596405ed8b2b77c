//! The `wyrd.*` methods. Parameters and answers are JSON; an agent is named
//! by `"entity"` (the number `wyrd.agents` gives, Bevy's entity bits) or by
//! `"name"` (its `Name`). Errors are JSON-RPC errors with a message that
//! says what is wrong (`-32602` for bad parameters).
//!
//! | method | params | answer |
//! |---|---|---|
//! | `wyrd.agents` | `{"tree"?: file, "running"?: node name or path}` | `{"agents": [{"entity", "id", "name", "tree", "status", "tick", "running": [leaf paths], "tags": [..]}]}`; a `running` no agent's tree has is an error |
//! | `wyrd.tree` | agent | `{"entity", "name", "tree", "status", "tick", "paused", "nodes": [{"path", "name", "kind", "depth", "status", "flags", "running", "masked", "note", "params", "guard", "children"}], "blackboard": {key: value or null}, "tags": [..], "problems": [..]}` |
//! | `wyrd.crowd` | `{"tree": file}` | `{"tree", "agents": n, "nodes": [{"path", "running": n}]}` |
//! | `wyrd.pause` / `wyrd.resume` | none | `{"paused", "steps"}` |
//! | `wyrd.step` | `{"ticks"?: n}` (1; pauses the trees first if they run) | `{"paused", "steps"}` |
//! | `wyrd.breakpoints.set` | `{"tree": file, "breakpoints": [{"node"?, "action"?, "on"?, "when"?, "agent"?, "name"?}]}` | `{"tree", "count"}`, or an error naming each breakpoint the tree cannot have |
//! | `wyrd.breakpoints.get` | `{"tree": file}` | `{"tree", "file": breakpoints file text, "last_hit": {..} or null}` |
//! | `wyrd.breakpoints.clear` | `{"tree": file}` | `{"tree", "count": 0}` |
//! | `wyrd.record` | agent, `"on": bool`, `"ticks"?: n` (600) | `{"recording": bool}`; stopping also gives `"last"`: what it recorded (as `wyrd.recording`), or null |
//! | `wyrd.recording` | agent | the flight recording (the file format `wyrd sim --replay` reads) |
//! | `wyrd.world` | none | `{"flags": [{"name", "value", "default", "scope", "version"}], "counters": [..]}` |
//! | `wyrd.world.set` | `{"name", "value": bool or integer}` | `{"name", "value", "changed"}` (source `"remote"`) |
//! | `wyrd.save` | none | `{"dir", "status", "documents", "error"}` |
//! | `wyrd.save.now` | none | `{"requested": true}` (the save is written at the next frame) |
//!
//! A breakpoint's `when` is a condition as a tree file writes it, in a
//! string (`"when": "All([Is(\"carrying\"), Bb(\"fatigue\", Gt, 8.0)])"`),
//! or the same as JSON (`{"All": [{"Is": "carrying"}, {"Bb": ["fatigue",
//! "Gt", 8.0]}]}`). The breakpoints are checked against the tree (an agent's
//! version, else the loaded asset's) as `wyrd check` checks a file: a node,
//! action or key it does not have is an error, and nothing is set.
//! `wyrd.tree`'s nodes show `params` as written (`{goal}`: the key they
//! read); `"running"` lists the running leaves' paths.

use bevy::ecs::entity::Entity;
use bevy::ecs::name::Name;
use bevy::ecs::system::In;
use bevy::ecs::world::World;
use bevy_remote::{BrpError, BrpResult, RemoteInstantMethodSystemId};
use serde_json::{Value, json};
use wyrd_bt::rows::{NodeRow, crowd_counts, tree_rows};
use wyrd_bt::{Blackboard, BreakpointDef, BreakpointsDef, BtAgent, BtBreakpoints, BtSettings};
use wyrd_state::WorldState;

use crate::register;

type Params = In<Option<Value>>;

/// Every method and how it is registered.
#[allow(clippy::type_complexity, reason = "a table of function pointers")]
pub(crate) const ALL: &[(&str, fn(&mut bevy::app::App) -> RemoteInstantMethodSystemId)] = &[
    ("wyrd.agents", |app| register(app, agents)),
    ("wyrd.tree", |app| register(app, tree)),
    ("wyrd.crowd", |app| register(app, crowd)),
    ("wyrd.pause", |app| register(app, pause)),
    ("wyrd.resume", |app| register(app, resume)),
    ("wyrd.step", |app| register(app, step)),
    ("wyrd.breakpoints.set", |app| register(app, breakpoints_set)),
    ("wyrd.breakpoints.get", |app| register(app, breakpoints_get)),
    ("wyrd.breakpoints.clear", |app| {
        register(app, breakpoints_clear)
    }),
    ("wyrd.record", |app| register(app, record)),
    ("wyrd.recording", |app| register(app, recording)),
    ("wyrd.world", |app| register(app, world_state)),
    ("wyrd.world.set", |app| register(app, world_set)),
    ("wyrd.save", |app| register(app, save_status)),
    ("wyrd.save.now", |app| register(app, save_now)),
];

fn bad(message: impl Into<String>) -> BrpError {
    BrpError {
        code: bevy_remote::error_codes::INVALID_PARAMS,
        message: message.into(),
        data: None,
    }
}

fn param<'a>(params: &'a Option<Value>, key: &str) -> Option<&'a Value> {
    params.as_ref().and_then(|p| p.get(key))
}

/// Parameters are an object (or none): `5` or `[1, 2]` were read as no
/// parameters at all (a step of 1).
fn object(params: &Option<Value>) -> BrpResult<()> {
    match params {
        None | Some(Value::Null | Value::Object(_)) => Ok(()),
        Some(other) => Err(bad(format!(
            "params: {} is not an object ({{\"name\": value, ...}})",
            shown(other)
        ))),
    }
}

fn text_param(params: &Option<Value>, key: &str) -> BrpResult<String> {
    opt_text_param(params, key)?.ok_or_else(|| bad(format!("\"{key}\" (a string) is missing")))
}

/// An optional string parameter: absent is `None`, another type an error
/// (a filter of the wrong type listed every agent, as if absent).
fn opt_text_param(params: &Option<Value>, key: &str) -> BrpResult<Option<String>> {
    object(params)?;
    match param(params, key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(bad(format!("\"{key}\": {} is not a string", shown(other)))),
    }
}

/// A value as an error shows it: long ones cut (an error echoed a
/// 100,000-character name whole).
fn shown(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    }
}

/// The agent a request names, by `"entity"` or `"name"`.
fn agent_of(world: &mut World, params: &Option<Value>) -> BrpResult<Entity> {
    object(params)?;
    match param(params, "entity") {
        None | Some(Value::Null) => {}
        Some(v) => {
            // An entity of the wrong type was ignored for the name beside
            // it, or taken for a missing one.
            let bits = v.as_u64().ok_or_else(|| {
                bad(format!(
                    "\"entity\": {} is not an entity number (the \"entity\" wyrd.agents answers)",
                    shown(v)
                ))
            })?;
            let e = Entity::try_from_bits(bits)
                .ok_or_else(|| bad(format!("{bits} is not an entity")))?;
            return match world.get::<BtAgent>(e) {
                Some(_) => Ok(e),
                None if world.get_entity(e).is_err() => Err(bad(format!(
                    "entity {bits} ({e}) no longer exists (or never did)"
                ))),
                None => Err(bad(format!("entity {bits} ({e}) is not an agent"))),
            };
        }
    }
    let name = opt_text_param(params, "name")?
        .ok_or_else(|| bad("name the agent: \"entity\" (from wyrd.agents) or \"name\""))?;
    let name = name.as_str();
    let mut q = world.query::<(Entity, &Name, &BtAgent)>();
    q.iter(world)
        .find(|(_, n, _)| n.as_str() == name)
        .map(|(e, ..)| e)
        .ok_or_else(|| bad(format!("no agent is named {}", shown(&Value::from(name)))))
}

/// An agent's rows (its program bound), with its tags.
fn rows_of(agent: &BtAgent, bb: Option<&Blackboard>) -> Vec<NodeRow> {
    match agent.program() {
        Some(p) => tree_rows(p, agent.state(), bb.map_or(0, Blackboard::tags)),
        None => Vec::new(),
    }
}

fn running_leaves(rows: &[NodeRow]) -> Vec<&str> {
    rows.iter()
        .filter(|r| r.running && !r.has_children)
        .map(|r| r.path.as_str())
        .collect()
}

fn tags_of(agent: &BtAgent, bb: Option<&Blackboard>) -> Vec<String> {
    let (Some(p), Some(bb)) = (agent.program(), bb) else {
        return Vec::new();
    };
    p.tag_names()
        .iter()
        .filter(|t| bb.has_tag(t))
        .cloned()
        .collect()
}

/// `wyrd.agents`: every agent, or those of a tree / running a node.
pub fn agents(In(params): Params, world: &mut World) -> BrpResult {
    let tree = opt_text_param(&params, "tree")?;
    let running = opt_text_param(&params, "running")?;
    let mut q = world.query::<(Entity, Option<&Name>, &BtAgent, Option<&Blackboard>)>();
    let mut out = Vec::new();
    for (e, name, agent, bb) in q.iter(world) {
        if tree.as_deref().is_some_and(|t| agent.tree_source() != t) {
            continue;
        }
        let rows = rows_of(agent, bb);
        if let Some(r) = &running
            && !rows
                .iter()
                .any(|n| n.running && (&n.name == r || &n.path == r))
        {
            continue;
        }
        out.push(json!({
            "entity": e.to_bits(),
            "id": e.to_string(),
            "name": name.map(|n| n.as_str().to_owned()),
            "tree": agent.tree_source(),
            "status": agent.status().as_str(),
            "tick": agent.state().ticks(),
            "running": running_leaves(&rows),
            "tags": tags_of(agent, bb),
        }));
    }
    if let Some(t) = &tree
        && out.is_empty()
        && program_of(world, t).is_none()
    {
        return Err(unknown_tree(world, t));
    }
    // None running it, or none could: a name no tree has is a typo.
    if let Some(r) = &running
        && out.is_empty()
    {
        let mut names: Vec<String> = Vec::new();
        for agent in world.query::<&BtAgent>().iter(world) {
            if let Some(p) = agent.program() {
                for n in p.nodes() {
                    names.push(n.name().to_owned());
                    names.push(n.path().to_owned());
                }
            }
        }
        if !names.iter().any(|n| n == r) {
            let hint = wyrd_bt::closest_name(r, names.iter().map(String::as_str));
            return Err(bad(format!(
                "\"running\": no node of the agents' trees is named {}{hint}",
                shown(&Value::from(r.as_str()))
            )));
        }
    }
    Ok(json!({ "agents": out }))
}

fn row_json(r: &NodeRow) -> Value {
    json!({
        "path": r.path,
        "name": r.name,
        "kind": r.kind,
        "depth": r.depth,
        "status": r.status.as_str(),
        "flags": r.flags,
        "running": r.running,
        "masked": r.masked,
        "note": r.note,
        "params": r.params,
        "guard": r.guard,
        "children": r.has_children,
    })
}

/// `wyrd.tree`: one agent's tree and its live state.
pub fn tree(In(params): Params, world: &mut World) -> BrpResult {
    let e = agent_of(world, &params)?;
    let paused = world.get_resource::<BtSettings>().is_some_and(|s| s.paused);
    let agent = world.get::<BtAgent>(e).ok_or_else(|| bad("not an agent"))?;
    let bb = world.get::<Blackboard>(e);
    let rows = rows_of(agent, bb);
    let blackboard: serde_json::Map<String, Value> = bb
        .map(|bb| {
            bb.iter()
                .map(|(k, v)| {
                    let v = v.map_or(Value::Null, |v| {
                        serde_json::to_value(v).unwrap_or_else(|_| Value::String(v.to_string()))
                    });
                    (k.to_owned(), v)
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(json!({
        "entity": e.to_bits(),
        "name": world.get::<Name>(e).map(|n| n.as_str().to_owned()),
        "tree": agent.tree_source(),
        "status": agent.status().as_str(),
        "tick": agent.state().ticks(),
        "paused": paused,
        "nodes": rows.iter().map(row_json).collect::<Vec<_>>(),
        "running": running_leaves(&rows),
        "blackboard": blackboard,
        "tags": tags_of(agent, bb),
        "problems": agent.problems().iter().map(ToString::to_string).collect::<Vec<_>>(),
    }))
}

/// `wyrd.crowd`: how many agents of a tree have each node running.
pub fn crowd(In(params): Params, world: &mut World) -> BrpResult {
    let tree = text_param(&params, "tree")?;
    let mut q = world.query::<&BtAgent>();
    let mut program = None;
    let mut states = Vec::new();
    for agent in q.iter(world) {
        if agent.tree_source() != tree {
            continue;
        }
        let Some(p) = agent.program() else { continue };
        // Agents on another version of the tree (mid-reload) are left out.
        if program.get_or_insert_with(|| p.clone()).content_hash() != p.content_hash() {
            continue;
        }
        states.push(agent.state());
    }
    let Some(program) = program else {
        if program_of(world, &tree).is_none() {
            return Err(unknown_tree(world, &tree));
        }
        return Err(bad(format!(
            "no agent runs {}",
            shown(&Value::from(tree.as_str()))
        )));
    };
    let counts = crowd_counts(&program, states.iter().copied());
    let nodes: Vec<Value> = program
        .nodes()
        .map(|n| json!({ "path": n.path(), "running": counts[n.index() as usize] }))
        .collect();
    Ok(json!({ "tree": tree, "agents": states.len(), "nodes": nodes }))
}

fn settings_json(s: &BtSettings) -> Value {
    json!({ "paused": s.paused, "steps": s.steps })
}

fn with_settings(world: &mut World, f: impl FnOnce(&mut BtSettings)) -> BrpResult {
    let mut s = world
        .get_resource_mut::<BtSettings>()
        .ok_or_else(|| BrpError::resource_not_present("BtSettings (add BtPlugin)"))?;
    f(&mut s);
    Ok(settings_json(&s))
}

/// `wyrd.pause`: the trees stop ticking (the game goes on).
pub fn pause(In(_): Params, world: &mut World) -> BrpResult {
    with_settings(world, |s| {
        s.paused = true;
        s.steps = 0;
    })
}

/// `wyrd.resume`: the trees tick again.
pub fn resume(In(_): Params, world: &mut World) -> BrpResult {
    with_settings(world, |s| {
        s.paused = false;
        s.steps = 0;
    })
}

/// A count parameter: absent, `default`; a positive integer, that; else
/// an error (`-1`, `"x"` and `0` were taken as the default).
fn count_param(params: &Option<Value>, key: &str, default: u32) -> BrpResult<u32> {
    object(params)?;
    let Some(v) = param(params, key) else {
        return Ok(default);
    };
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|&n| n > 0)
        .ok_or_else(|| bad(format!("\"{key}\": {v} is not a positive integer")))
}

/// `wyrd.step`: run this many tree ticks (1) and pause again; running
/// trees are paused first (a step from a running game stops it after
/// them).
pub fn step(In(params): Params, world: &mut World) -> BrpResult {
    let ticks = count_param(&params, "ticks", 1)?;
    with_settings(world, |s| {
        if !s.paused {
            s.paused = true;
            s.steps = 0;
        }
        s.steps = s.steps.saturating_add(ticks);
    })
}

/// The program a tree's breakpoints are checked against: an agent's (the
/// version agents run), else the loaded asset's.
fn program_of(world: &mut World, tree: &str) -> Option<std::sync::Arc<wyrd_bt::Program>> {
    let mut agents = world.query::<&BtAgent>();
    let running = agents
        .iter(world)
        .filter(|a| a.tree_source() == tree)
        .find_map(|a| a.program().cloned());
    running.or_else(|| {
        world
            .get_resource::<bevy::asset::Assets<wyrd_bt::BtAsset>>()?
            .iter()
            .map(|(_, a)| &a.program)
            .find(|p| p.source() == tree)
            .cloned()
    })
}

/// A tree no agent runs and none loaded: the error names the loaded tree
/// nearest it and every loaded one (a misspelt `"tree"` filter answered an
/// empty crowd, as if no agent ran a tree there is).
fn unknown_tree(world: &mut World, tree: &str) -> BrpError {
    let mut trees: Vec<String> = world
        .get_resource::<bevy::asset::Assets<wyrd_bt::BtAsset>>()
        .map(|a| {
            a.iter()
                .map(|(_, a)| a.program.source().to_owned())
                .collect()
        })
        .unwrap_or_default();
    let mut agents = world.query::<&BtAgent>();
    trees.extend(agents.iter(world).map(|a| a.tree_source().to_owned()));
    trees.retain(|t| !t.is_empty());
    trees.sort_unstable();
    trees.dedup();
    let hint = wyrd_bt::closest_name(tree, trees.iter().map(String::as_str));
    let loaded = if trees.is_empty() {
        "none".to_owned()
    } else {
        trees.join(", ")
    };
    bad(format!(
        "no tree {} is loaded{hint} (loaded: {loaded})",
        shown(&Value::from(tree))
    ))
}

/// A breakpoint's `"when"` written as a tree file writes it (a string)
/// becomes the same condition as JSON.
fn when_from_text(list: &mut Value) -> BrpResult<()> {
    let Some(items) = list.as_array_mut() else {
        return Err(bad("\"breakpoints\" is not a list"));
    };
    for (n, item) in items.iter_mut().enumerate() {
        let Some(when) = item.get_mut("when") else {
            continue;
        };
        if let Value::String(text) = when {
            let check = wyrd_bt::Check::parse(text)
                .map_err(|e| bad(format!("breakpoint {}: \"when\": {e}", n + 1)))?;
            *when = serde_json::to_value(check).map_err(BrpError::internal)?;
        }
    }
    Ok(())
}

/// `wyrd.breakpoints.set`: a tree's breakpoints (replacing its others),
/// once they are checked against the tree.
pub fn breakpoints_set(In(params): Params, world: &mut World) -> BrpResult {
    let tree = text_param(&params, "tree")?;
    let mut list = param(&params, "breakpoints")
        .cloned()
        .ok_or_else(|| bad("\"breakpoints\" (a list) is missing"))?;
    when_from_text(&mut list)?;
    let breakpoints: Vec<BreakpointDef> =
        serde_json::from_value(list).map_err(|e| bad(format!("a breakpoint of {tree}: {e}")))?;
    let def = BreakpointsDef { breakpoints };
    let Some(program) = program_of(world, &tree) else {
        return Err(unknown_tree(world, &tree));
    };
    if let Err(errors) = wyrd_bt::Breakpoints::resolve(&def, &program, "wyrd.breakpoints.set") {
        let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
        return Err(bad(text.join("\n")));
    }
    let count = def.breakpoints.len();
    let mut b = world
        .get_resource_mut::<BtBreakpoints>()
        .ok_or_else(|| BrpError::resource_not_present("BtBreakpoints (add BtBreakpointsPlugin)"))?;
    b.set(tree.clone(), def);
    Ok(json!({ "tree": tree, "count": count }))
}

/// `wyrd.breakpoints.get`: a tree's breakpoints as a file's text, and the
/// last hit.
pub fn breakpoints_get(In(params): Params, world: &mut World) -> BrpResult {
    let tree = text_param(&params, "tree")?;
    let b = world
        .get_resource::<BtBreakpoints>()
        .ok_or_else(|| BrpError::resource_not_present("BtBreakpoints (add BtBreakpointsPlugin)"))?;
    // The last hit of this tree (one is kept for all trees).
    let last_hit = b.last_hit.as_ref().filter(|h| h.tree == tree).map(|h| {
        json!({
            "entity": h.entity.to_bits(),
            "tree": h.tree,
            "tick": h.tick,
            "breakpoint": h.hit.name,
            "why": h.hit.why,
        })
    });
    Ok(json!({
        "tree": tree,
        "file": b.get(&tree).cloned().unwrap_or_default().to_ron(),
        "last_hit": last_hit,
    }))
}

/// `wyrd.breakpoints.clear`: removes a tree's breakpoints.
pub fn breakpoints_clear(In(params): Params, world: &mut World) -> BrpResult {
    let tree = text_param(&params, "tree")?;
    let mut b = world
        .get_resource_mut::<BtBreakpoints>()
        .ok_or_else(|| BrpError::resource_not_present("BtBreakpoints (add BtBreakpointsPlugin)"))?;
    b.clear(&tree);
    Ok(json!({ "tree": tree, "count": 0 }))
}

/// `wyrd.record`: starts (`"on": true`) or stops an agent's flight
/// recorder.
pub fn record(In(params): Params, world: &mut World) -> BrpResult {
    let e = agent_of(world, &params)?;
    let on = match param(&params, "on") {
        Some(Value::Bool(on)) => *on,
        Some(other) => return Err(bad(format!("\"on\": {other} is not true or false"))),
        None => return Err(bad("\"on\" (true or false) is missing")),
    };
    let ticks = count_param(&params, "ticks", 600)? as usize;
    if ticks > wyrd_bt::MAX_RECORDED_TICKS {
        // Its room is taken at once: 4 billion ticks killed the game.
        return Err(bad(format!(
            "\"ticks\": {ticks} is more than a recording keeps ({})",
            wyrd_bt::MAX_RECORDED_TICKS
        )));
    }
    let mut agent = world
        .get_mut::<BtAgent>(e)
        .ok_or_else(|| bad("not an agent"))?;
    // What a recording this one replaces held: said, not lost silently.
    let held = agent.recording().map_or(0, |r| r.ticks.len());
    if on {
        agent.record(ticks);
        return Ok(json!({ "recording": true, "replaced_ticks": held }));
    }
    // Stopped, the recorder is dropped: what it held goes with the answer
    // (stop, then download lost it).
    let last = agent.recording();
    agent.stop_recording();
    let last = last
        .map(serde_json::to_value)
        .transpose()
        .map_err(BrpError::internal)?;
    // A breakpoint watching the agent starts its own lead-up recording
    // again: said (the answer said `false` while it went on).
    let watched = world
        .get::<BtAgent>(e)
        .is_some_and(|a| a.breakpoints_watch());
    Ok(json!({ "recording": watched, "last": last, "breakpoint_lead_up": watched }))
}

/// `wyrd.recording`: an agent's flight recording.
pub fn recording(In(params): Params, world: &mut World) -> BrpResult {
    let e = agent_of(world, &params)?;
    let agent = world.get::<BtAgent>(e).ok_or_else(|| bad("not an agent"))?;
    let rec = agent.recording().ok_or_else(|| {
        bad(format!(
            "{e} is not recording (wyrd.record with \"on\": true)"
        ))
    })?;
    serde_json::to_value(rec).map_err(BrpError::internal)
}

fn world_of(world: &World) -> BrpResult<&WorldState> {
    world
        .get_resource::<WorldState>()
        .ok_or_else(|| BrpError::resource_not_present("WorldState (add WorldStatePlugin)"))
}

/// `wyrd.world`: every flag and counter.
pub fn world_state(In(_): Params, world: &mut World) -> BrpResult {
    let ws = world_of(world)?;
    let flags: Vec<Value> = ws
        .flags()
        .iter()
        .map(|f| {
            json!({"name": &*f.name, "value": f.value, "default": f.default,
                   "scope": f.scope.to_string(), "version": f.version})
        })
        .collect();
    let counters: Vec<Value> = ws
        .counters()
        .iter()
        .map(|c| {
            json!({"name": &*c.name, "value": c.value, "default": c.default,
                   "scope": c.scope.to_string(), "version": c.version})
        })
        .collect();
    Ok(json!({ "flags": flags, "counters": counters }))
}

/// `wyrd.world.set`: sets a flag (a bool) or a counter (an integer), as
/// game code does, with the source `"remote"`.
pub fn world_set(In(params): Params, world: &mut World) -> BrpResult {
    let name = text_param(&params, "name")?;
    let value = param(&params, "value").ok_or_else(|| bad("\"value\" is missing"))?;
    let mut ws = world
        .get_resource_mut::<WorldState>()
        .ok_or_else(|| BrpError::resource_not_present("WorldState (add WorldStatePlugin)"))?;
    let changed = match value {
        Value::Bool(b) => ws.set_flag(name.as_str(), *b, "remote"),
        Value::Number(n) => {
            let v = n
                .as_i64()
                .ok_or_else(|| bad(format!("{name}: {n} is not an integer")))?;
            ws.set_counter(name.as_str(), v, "remote")
        }
        other => {
            return Err(bad(format!(
                "{name}: {other} is neither a bool nor an integer"
            )));
        }
    }
    .map_err(|e| bad(e.to_string()))?;
    Ok(json!({ "name": name, "value": value, "changed": changed }))
}

/// `wyrd.save`: the save slot's status.
pub fn save_status(In(_): Params, world: &mut World) -> BrpResult {
    let s = world
        .get_resource::<wyrd_save::SaveStatus>()
        .ok_or_else(|| BrpError::resource_not_present("SaveStatus (add WorldStateSavePlugin)"))?;
    Ok(json!({
        "dir": s.dir.display().to_string(),
        "status": s.summary(),
        "documents": s.documents,
        "error": s.last_error,
    }))
}

/// `wyrd.save.now`: asks for a save (written at the next frame).
pub fn save_now(In(_): Params, world: &mut World) -> BrpResult {
    world_of(world)?;
    // Without the save plugin nothing would read the request.
    if world.get_resource::<wyrd_save::SaveStatus>().is_none() {
        return Err(BrpError::resource_not_present(
            "SaveStatus (add WorldStateSavePlugin)",
        ));
    }
    world.write_message(wyrd_state::save::SaveWorldState::default());
    Ok(json!({ "requested": true }))
}
