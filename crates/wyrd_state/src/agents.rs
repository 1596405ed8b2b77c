//! AIs saved with the world: the tree state of every entity marked
//! [`PersistAgent`], as one more document of the save slot (signed, atomic,
//! with backup, like the world state). One line in a game:
//! `app.add_plugins(AgentsSavePlugin)`.
//!
//! Running trees change all the time, so they are not saved on every
//! change: while a persisted agent's tree, blackboard or actions changed
//! since the last save, the slot is saved every [`AgentsSaveInterval`]
//! (default 5 s; a crash loses at most that much of the AIs' progress), and
//! at exit.

use std::time::Duration;

use bevy::app::AppExit;
use bevy::prelude::*;
use serde::{Deserialize, Serialize};
use wyrd_bt::{AgentProblem, Blackboard, BtActions, BtAgent, RestoreTree, SavedTree, Value};
use wyrd_save::{
    DocumentLoad, SaveAppExt, SaveDocument, SaveExit, SaveRequest, SaveSlot, SaveSystems,
};

/// Marks an entity whose tree state is saved and restored with the game,
/// by this stable id (the game gives the same id to the entity it spawns
/// again after loading). The restore replaces the blackboard with the
/// saved one, values the game set at spawn included (the saved agent's
/// health is the one it had): set a value after the restore
/// ([`BtAgent::restore_report`] is `Some` then) to override it.
#[derive(Component, Debug, Clone, PartialEq, Eq, Hash, Reflect)]
#[reflect(Component, Debug)]
pub struct PersistAgent(pub String);

/// A stable save id for an entity that saved agents refer to (a target, a
/// cover point, a vehicle): an `Entity` in a persisted agent's blackboard
/// is saved as this id and resolved to the entity with the same id after
/// loading (or, spawned later, when it spawns: the key stays unset until
/// then, and saves keep the reference by its id). [`PersistAgent`] ids
/// count too. An entity with neither is saved as unset (its index means
/// nothing in the next run). Give each entity its own id: a reference to
/// an id that several entities share when loading loads unset, and the
/// agent reports it ([`AgentProblem::UnresolvedEntity`]).
#[derive(Component, Debug, Clone, PartialEq, Eq, Hash, Reflect)]
#[reflect(Component, Debug)]
pub struct PersistId(pub String);

/// An entity a saved agent's blackboard key held, by its stable id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedEntityRef {
    /// The agent ([`PersistAgent`] id).
    #[serde(rename = "Agent")]
    pub agent: String,
    /// The blackboard key.
    #[serde(rename = "Key")]
    pub key: String,
    /// The entity's [`PersistId`] / [`PersistAgent`] id; `None`: it had
    /// none, so it loads unset.
    #[serde(rename = "Target")]
    pub target: Option<String>,
}

/// The saved tree states, one per [`PersistAgent`] id.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentsDocument {
    /// The schema (first member of the file).
    #[serde(rename = "SchemaVersion")]
    pub schema_version: u32,
    /// Agents by id. Entity values of their blackboards are saved unset;
    /// [`entity_refs`](Self::entity_refs) says which entity each was.
    #[serde(rename = "Agents")]
    pub agents: Vec<(String, SavedTree)>,
    /// The entities the agents' blackboards held, by stable id.
    #[serde(rename = "EntityRefs", default)]
    pub entity_refs: Vec<SavedEntityRef>,
}

/// The stable id of an entity: its [`PersistId`], else its [`PersistAgent`].
fn stable_id(world: &World, e: Entity) -> Option<String> {
    let e = world.get_entity(e).ok()?;
    e.get::<PersistId>()
        .map(|p| p.0.clone())
        .or_else(|| e.get::<PersistAgent>().map(|p| p.0.clone()))
}

/// Takes the entity values out of a saved blackboard: unset in the saved
/// tree, their stable ids in `refs`.
fn take_entity_refs(
    world: &World,
    agent: &str,
    saved: &mut SavedTree,
    refs: &mut Vec<SavedEntityRef>,
    unidentified: &mut Vec<(String, String)>,
) {
    for (key, value) in &mut saved.blackboard {
        if let Some(Value::Entity(e)) = *value {
            let target = stable_id(world, e);
            // An entity that is there but has no id (one despawned since
            // is gone in any save).
            if target.is_none() && world.get_entity(e).is_ok() {
                unidentified.push((agent.to_owned(), key.clone()));
            }
            refs.push(SavedEntityRef {
                agent: agent.to_owned(),
                key: key.clone(),
                target,
            });
            *value = None;
        }
    }
}

/// The (agent, key) pairs a save found holding an entity with no stable
/// id, each warned about once.
#[derive(Resource, Default)]
struct UnidentifiedWarned(std::collections::HashSet<(String, String)>);

/// Says, when the save is written (while the game can still give the
/// entity an id), that a key holds an entity with no [`PersistId`]: the
/// save keeps it unset, and a relaunch finds the key empty. Once per agent
/// and key.
fn warn_unidentified(world: &mut World, unidentified: Vec<(String, String)>) {
    if unidentified.is_empty() {
        return;
    }
    let new: Vec<(String, String)> = {
        let mut warned = world.get_resource_or_init::<UnidentifiedWarned>();
        unidentified
            .into_iter()
            .filter(|pair| warned.0.insert(pair.clone()))
            .collect()
    };
    let mut agents = world.query::<(&PersistAgent, &mut BtAgent)>();
    for (agent_id, key) in new {
        let problem = AgentProblem::UnresolvedEntity {
            key,
            held: "an entity with no PersistId or PersistAgent when the game saved: the save keeps the key unset, and a relaunch finds it empty (give the entity a PersistId for the reference to be saved)".to_owned(),
        };
        warn!("agent {agent_id:?}: {problem}");
        for (id, mut agent) in agents.iter_mut(world) {
            if id.0 == agent_id {
                agent.add_problem(problem.clone());
            }
        }
    }
}

/// The schema this build writes and reads.
pub const AGENTS_SCHEMA_VERSION: u32 = 1;

impl SaveDocument for AgentsDocument {
    const SCHEMA_VERSION: u32 = AGENTS_SCHEMA_VERSION;

    fn fresh() -> Self {
        AgentsDocument {
            schema_version: AGENTS_SCHEMA_VERSION,
            agents: Vec::new(),
            entity_refs: Vec::new(),
        }
    }

    fn capture(world: &mut World) -> Self {
        let mut q = world.query::<(
            &PersistAgent,
            &BtAgent,
            &Blackboard,
            &BtActions,
            Option<&RestoreTree>,
        )>();
        // An agent still waiting for its saved state (its tree loading) is
        // saved as that state, not as a fresh one.
        let mut agents: Vec<(String, SavedTree)> = q
            .iter(world)
            .filter_map(|(id, a, bb, ac, pending)| {
                let state = match pending {
                    Some(r) => Some(r.0.clone()),
                    None => a.save_state(bb, ac),
                }?;
                Some((id.0.clone(), state))
            })
            .collect();
        let mut entity_refs = Vec::new();
        let mut unidentified = Vec::new();
        for (id, saved) in &mut agents {
            take_entity_refs(world, id, saved, &mut entity_refs, &mut unidentified);
        }
        warn_unidentified(world, unidentified);
        // A reference still waiting for its target is saved by its id
        // while its key is unset: the next run waits for it again (saving
        // it unset would lose it for good).
        if let Some(waiting) = world.get_resource::<WaitingRefs>() {
            for w in &waiting.0 {
                // Its agent, not one spawned since with the same id.
                let same = world
                    .get::<PersistAgent>(w.agent)
                    .is_some_and(|p| p.0 == w.agent_id);
                let unset = agents.iter().any(|(id, saved)| {
                    *id == w.agent_id
                        && saved
                            .blackboard
                            .iter()
                            .any(|(k, v)| *k == w.key && v.is_none())
                });
                let taken = entity_refs
                    .iter()
                    .any(|r| r.agent == w.agent_id && r.key == w.key);
                if same && unset && !taken {
                    entity_refs.push(SavedEntityRef {
                        agent: w.agent_id.clone(),
                        key: w.key.clone(),
                        target: Some(w.target.clone()),
                    });
                }
            }
        }
        // And saved states whose entity is not spawned yet are kept, with
        // their references.
        if let Some(p) = world.get_resource::<PendingAgentStates>() {
            for (id, s) in &p.0 {
                if !agents.iter().any(|(a, _)| a == id) {
                    agents.push((id.clone(), s.clone()));
                    if let Some(r) = world.get_resource::<PendingEntityRefs>() {
                        entity_refs.extend(r.0.iter().filter(|r| r.agent == *id).cloned());
                    }
                }
            }
        }
        agents.sort_by(|a, b| a.0.cmp(&b.0));
        // One id on two agents: a relaunch gives the saved state (and its
        // references) to whichever spawns first; said, not guessed at.
        for pair in agents.windows(2) {
            if pair[0].0 == pair[1].0 {
                warn!(
                    "PersistAgent id {:?} is on more than one agent: the save keeps one state for it, and a relaunch gives it to the first agent spawned with the id; give each agent its own id",
                    pair[0].0
                );
            }
        }
        agents.dedup_by(|a, b| a.0 == b.0);
        entity_refs.sort_by(|a, b| (&a.agent, &a.key).cmp(&(&b.agent, &b.key)));
        // The kept agent's (its references were taken first).
        entity_refs.dedup_by(|a, b| a.agent == b.agent && a.key == b.key);
        AgentsDocument {
            schema_version: AGENTS_SCHEMA_VERSION,
            agents,
            entity_refs,
        }
    }

    fn apply(self, world: &mut World, load: &DocumentLoad) {
        let source = load.source.map_or("fresh", |k| k.describe());
        info!(
            "agents from {source}: {} saved tree states",
            self.agents.len()
        );
        world.get_resource_or_init::<PendingEntityRefs>().0 = self.entity_refs;
        // References waiting from the state this one replaces wait no more.
        world.get_resource_or_init::<WaitingRefs>().0.clear();
        let mut pending = world.get_resource_or_init::<PendingAgentStates>();
        pending.0 = self.agents;
        // Entities already spawned get theirs now; later ones when spawned.
        world.run_system_cached(hand_out).ok();
    }
}

/// Saved states waiting for their [`PersistAgent`] entity.
#[derive(Resource, Debug, Default)]
pub struct PendingAgentStates(pub Vec<(String, SavedTree)>);

/// The entity references of saved states still waiting for their agent.
#[derive(Resource, Debug, Default)]
pub struct PendingEntityRefs(pub Vec<SavedEntityRef>);

/// A saved reference whose target was not spawned when its agent got its
/// state: the key is set when an entity with the id appears (while the key
/// is still unset), and saved by the id meanwhile.
#[derive(Debug, Clone)]
struct WaitingRef {
    agent: Entity,
    /// The agent's [`PersistAgent`] id.
    agent_id: String,
    key: String,
    /// The target's stable id.
    target: String,
}

/// References waiting for their targets (see [`WaitingRef`]).
#[derive(Resource, Debug, Default)]
struct WaitingRefs(Vec<WaitingRef>);

/// The problem of a reference to `target` under `key` that resolved to no
/// entity (removed again when a waiting one resolves).
fn unresolved(key: &str, target: Option<&str>) -> AgentProblem {
    let held = match target {
        Some(t) => format!(
            "the entity with PersistId or PersistAgent {t:?} when saved; no entity has that id now, so it loads unset until one spawns"
        ),
        None => "an entity with no PersistId when saved, so it loads unset (give an entity a PersistId for references to it to be saved)".to_owned(),
    };
    AgentProblem::UnresolvedEntity {
        key: key.to_owned(),
        held,
    }
}

/// The problem of a reference to `target` under `key` that several
/// entities share the id of (`found`).
fn ambiguous(key: &str, target: &str, found: &[Entity]) -> AgentProblem {
    let entities: Vec<String> = found.iter().map(ToString::to_string).collect();
    AgentProblem::UnresolvedEntity {
        key: key.to_owned(),
        held: format!(
            "the entity with PersistId or PersistAgent {target:?} when saved; {} entities have that id now ({}), so it loads unset (give each its own id)",
            found.len(),
            entities.join(", ")
        ),
    }
}

/// Gives each spawned [`PersistAgent`] its saved state, with the entities
/// its blackboard held resolved by stable id among the entities spawned
/// now; a reference that resolves to nothing, or to several entities
/// sharing its id, stays unset and is reported (never another entity). One with an id waits for an entity with that
/// id to spawn ([`resolve_waiting`]).
fn hand_out(
    mut commands: Commands,
    mut pending: ResMut<PendingAgentStates>,
    mut refs: ResMut<PendingEntityRefs>,
    mut waiting: ResMut<WaitingRefs>,
    agents: Query<(Entity, &PersistAgent)>,
    targets: Query<(Entity, &PersistId)>,
    mut bt: Query<&mut BtAgent>,
) {
    if pending.0.is_empty() {
        return;
    }
    // The entities with a stable id: one, or all of them when several
    // share it.
    let find = |id: &str| -> Vec<Entity> {
        targets
            .iter()
            .filter(|(_, p)| p.0 == id)
            .map(|(e, _)| e)
            .chain(agents.iter().filter(|(_, p)| p.0 == id).map(|(e, _)| e))
            .collect()
    };
    for (e, id) in &agents {
        if let Some(k) = pending.0.iter().position(|(p, _)| *p == id.0) {
            let (_, mut saved) = pending.0.swap_remove(k);
            // A new state: what this agent waited for before is moot.
            waiting.0.retain(|w| w.agent != e && w.agent_id != id.0);
            let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut refs.0)
                .into_iter()
                .partition(|r| r.agent == id.0);
            refs.0 = rest;
            for r in mine {
                let found = r.target.as_deref().map(&find).unwrap_or_default();
                match found[..] {
                    [target] => {
                        if let Some(slot) = saved.blackboard.iter_mut().find(|(k, _)| *k == r.key) {
                            slot.1 = Some(Value::Entity(target));
                        }
                    }
                    // Two entities with one id: the reference cannot know
                    // which (a stranger's guard chased the decoy spawned
                    // first): unset, and said, never another entity.
                    [_, _, ..] => {
                        let problem = ambiguous(&r.key, r.target.as_deref().unwrap_or(""), &found);
                        warn!("agent {:?}: {problem}", id.0);
                        if let Ok(mut agent) = bt.get_mut(e) {
                            agent.add_problem(problem);
                        }
                    }
                    [] => {
                        let problem = unresolved(&r.key, r.target.as_deref());
                        warn!("agent {:?}: {problem}", id.0);
                        if let Some(target) = &r.target {
                            waiting.0.push(WaitingRef {
                                agent: e,
                                agent_id: id.0.clone(),
                                key: r.key.clone(),
                                target: target.clone(),
                            });
                        }
                        if let Ok(mut agent) = bt.get_mut(e) {
                            agent.add_problem(problem);
                        }
                    }
                }
            }
            commands.entity(e).insert(RestoreTree(saved));
        }
    }
}

/// References whose key the tree or the game wrote meanwhile, or whose
/// agent is gone, wait no more (checked every frame before the slot is
/// written: a key written then cleared again later is not set to the
/// target when it spawns, nor saved as the reference).
fn forget_moot_refs(
    mut waiting: ResMut<WaitingRefs>,
    mut agents: Query<(
        &PersistAgent,
        &Blackboard,
        Option<&mut BtAgent>,
        Has<RestoreTree>,
    )>,
) {
    waiting.0.retain(|w| {
        let Ok((id, bb, agent, restoring)) = agents.get_mut(w.agent) else {
            return false;
        };
        if id.0 != w.agent_id {
            return false;
        }
        // Before the restore the blackboard is the one the game spawned
        // (the saved one replaces it).
        if restoring || bb.get(&w.key).is_none() {
            return true;
        }
        if let Some(mut agent) = agent {
            agent.remove_problem(&unresolved(&w.key, Some(&w.target)));
        }
        false
    });
}

/// The stable id a component gives its entity.
trait StableId: Component {
    fn stable_id(&self) -> &str;
}

impl StableId for PersistId {
    fn stable_id(&self) -> &str {
        &self.0
    }
}

impl StableId for PersistAgent {
    fn stable_id(&self) -> &str {
        &self.0
    }
}

/// An entity with a stable id appeared: the references waiting for it are
/// set, on the saved state still to be restored or on the blackboard of a
/// restored agent whose key is still unset (a key the tree or the game
/// wrote meanwhile keeps its value), and the agent's problem goes.
fn resolve_waiting<C: StableId>(
    add: On<Add, C>,
    ids: Query<&C>,
    mut waiting: ResMut<WaitingRefs>,
    mut agents: Query<(
        Option<&mut BtAgent>,
        Option<&mut Blackboard>,
        Option<&mut RestoreTree>,
    )>,
) {
    if waiting.0.is_empty() {
        return;
    }
    let target = add.entity;
    let Ok(id) = ids.get(target) else {
        return;
    };
    let id = id.stable_id();
    waiting.0.retain(|w| {
        if w.target != id {
            return true;
        }
        let Ok((agent, bb, restore)) = agents.get_mut(w.agent) else {
            return false;
        };
        let set = match (restore, bb) {
            (Some(mut restore), _) => restore
                .0
                .blackboard
                .iter_mut()
                .find(|(k, v)| *k == w.key && v.is_none())
                .map(|slot| slot.1 = Some(Value::Entity(target)))
                .is_some(),
            (None, Some(mut bb)) if bb.get(&w.key).is_none() => bb.set(&w.key, target).is_ok(),
            _ => false,
        };
        if set {
            info!(
                "agent {:?}: blackboard key {:?} set to {target}, the entity with id {id:?} spawned at last",
                w.agent_id, w.key
            );
        }
        // Set, or the key holds what the tree or the game wrote meanwhile:
        // either way the reference waits no more.
        if let Some(mut agent) = agent {
            agent.remove_problem(&unresolved(&w.key, Some(&w.target)));
        }
        false
    });
}

/// How often the slot is saved while persisted agents change (their tree
/// state, blackboard or actions); they are always saved at exit. A crash
/// loses at most this much of what the AIs did. Default 5 s.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Reflect)]
#[reflect(Resource, Debug)]
pub struct AgentsSaveInterval(pub Duration);

impl Default for AgentsSaveInterval {
    fn default() -> Self {
        AgentsSaveInterval(Duration::from_secs(5))
    }
}

/// Whether a persisted agent changed since the last save, and when the
/// slot was last saved for them (shared by the interval's system and the
/// exit's).
#[derive(Resource, Default)]
struct AgentsChanged {
    changed: bool,
    saved_at: Duration,
}

/// A persisted agent whose tree state, blackboard or actions changed.
type AgentChanged = (
    With<PersistAgent>,
    Or<(Changed<BtAgent>, Changed<Blackboard>, Changed<BtActions>)>,
);

/// Saves the slot every [`AgentsSaveInterval`] while persisted agents
/// change.
fn save_changed_agents(
    changed: Query<(), AgentChanged>,
    time: Res<Time>,
    interval: Res<AgentsSaveInterval>,
    mut saves: MessageWriter<SaveRequest>,
    mut state: ResMut<AgentsChanged>,
) {
    if !changed.is_empty() {
        state.changed = true;
    }
    let now = time.elapsed();
    if state.changed && now.saturating_sub(state.saved_at) >= interval.0 {
        saves.write(SaveRequest);
        state.changed = false;
        state.saved_at = now;
    }
}

/// At exit (after `Last`, before the exit save): marks the slot dirty
/// when persisted agents changed since the last save, or in this frame
/// after [`save_changed_agents`] ran, so that the exit save includes them
/// (with no world-state change, nothing else would).
fn mark_agents_at_exit(
    changed: Query<(), AgentChanged>,
    exits: MessageReader<AppExit>,
    slot: Option<ResMut<SaveSlot>>,
    mut state: ResMut<AgentsChanged>,
) {
    if exits.is_empty() || (!state.changed && changed.is_empty()) {
        return;
    }
    if let Some(mut slot) = slot {
        slot.mark_dirty();
    }
    state.changed = false;
}

/// Saves and restores the tree state of every [`PersistAgent`] entity in
/// the save slot (`agents.json`). Add it after the save plugin. Agents are
/// saved every [`AgentsSaveInterval`] while they change, and at exit.
pub struct AgentsSavePlugin;

impl Plugin for AgentsSavePlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<PersistAgent>()
            .register_type::<PersistId>()
            .init_resource::<PendingEntityRefs>()
            .init_resource::<WaitingRefs>()
            .add_systems(
                Last,
                forget_moot_refs
                    .before(SaveSystems::Write)
                    .run_if(|w: Res<WaitingRefs>| !w.0.is_empty()),
            )
            .add_observer(resolve_waiting::<PersistId>)
            .add_observer(resolve_waiting::<PersistAgent>)
            .register_type::<AgentsSaveInterval>()
            .init_resource::<PendingAgentStates>()
            .init_resource::<AgentsSaveInterval>()
            .add_save_document::<AgentsDocument>("agents.json")
            .add_systems(
                PreUpdate,
                hand_out.run_if(|p: Res<PendingAgentStates>| !p.0.is_empty()),
            )
            .init_resource::<AgentsChanged>()
            .add_systems(Last, save_changed_agents.before(SaveSystems::Write))
            .add_systems(SaveExit, mark_agents_at_exit.before(SaveSystems::Exit));
    }
}
