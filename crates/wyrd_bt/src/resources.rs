//! The plugin's resources: the world values trees read, its settings and
//! tick statistics (read by the systems, set up by the plugin).

use std::collections::HashMap;

use bevy::diagnostic::DiagnosticPath;
use bevy::ecs::prelude::*;
use bevy::reflect::Reflect;
use bevy::reflect::std_traits::ReflectDefault;

use crate::asset::BtAsset;
use crate::problem::AgentProblem;
use crate::value::Value;

/// See [`BtPlugin::PARALLEL_FROM`](crate::BtPlugin::PARALLEL_FROM).
pub(crate) const PARALLEL_FROM: usize = 1024;
/// See [`BtPlugin::TICKED`](crate::BtPlugin::TICKED).
pub(crate) const TICKED: DiagnosticPath = DiagnosticPath::const_new("wyrd_bt/ticked");
/// See [`BtPlugin::DECIDE_MS`](crate::BtPlugin::DECIDE_MS).
pub(crate) const DECIDE_MS: DiagnosticPath = DiagnosticPath::const_new("wyrd_bt/decide_ms");

/// World values trees read with `World("NAME", Op, value)`: the world
/// state's flags and counters (published by `wyrd_state` with feature `bt`)
/// or anything else the game publishes. Read-only during the tick.
#[derive(Resource, Debug, Clone, Default, Reflect)]
// The reflected type path from before the plugin file was split (scenes
// and remote clients name types by it).
#[type_path = "wyrd_bt::plugin"]
#[reflect(Resource, Default, Debug)]
pub struct BtGlobals {
    index: HashMap<String, usize>,
    values: Vec<Value>,
    generation: u64,
    declared: Declared,
}

/// Whether every world value trees may read is published yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Reflect)]
// The reflected type path from before the plugin file was split (scenes
// and remote clients name types by it).
#[type_path = "wyrd_bt::plugin"]
pub enum Declared {
    /// The game publishes values itself (no declarations): a name not
    /// published is warned about as "not published (yet)".
    #[default]
    ByTheGame,
    /// The declarations (the world state's flags files) are still loading:
    /// a name not published is not reported yet.
    Loading,
    /// Every declared value is published: a name not published is declared
    /// nowhere, an error.
    Complete,
    /// The declarations settled, but one failed to load (a flags file
    /// with an error, reported where it is): a name not published may be
    /// declared in it, so it is not blamed on the tree. Trees start, as
    /// with `Complete`.
    Incomplete,
}

impl BtGlobals {
    /// Says whether the declared world values are all published (the
    /// world state sets it when its flags files have merged).
    pub fn set_declared(&mut self, declared: Declared) {
        self.declared = declared;
    }

    /// Whether the declared world values are all published.
    pub fn declared(&self) -> Declared {
        self.declared
    }

    /// Publishes (or updates) a value.
    pub fn set(&mut self, name: &str, value: impl Into<Value>) {
        let value = value.into();
        match self.index.get(name) {
            Some(&i) => {
                if self.values[i] != value {
                    self.values[i] = value;
                    self.generation += 1;
                }
            }
            None => {
                self.index.insert(name.to_owned(), self.values.len());
                self.values.push(value);
                self.generation += 1;
            }
        }
    }

    /// The names published.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.index.keys().map(String::as_str)
    }

    /// A value by name.
    pub fn get(&self, name: &str) -> Option<Value> {
        self.index.get(name).map(|&i| self.values[i])
    }

    /// Bumped on every change.
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

/// Tick statistics (for the inspector and on-screen counters).
#[derive(Resource, Debug, Clone, Copy, Default, Reflect)]
// The reflected type path from before the plugin file was split (scenes
// and remote clients name types by it).
#[type_path = "wyrd_bt::plugin"]
#[reflect(Resource, Default, Debug)]
pub struct BtStats {
    /// Agents ticked in the last fixed step.
    pub ticked: u32,
    /// Time in `BtSystems::Decide`'s tick, last step, in nanoseconds.
    pub decide_ns: u64,
    /// Time in `BtSystems::Act`, last step, in nanoseconds.
    pub act_ns: u64,
    /// Agent ticks per second of the schedule's time (smoothed): the
    /// ticks of a step over the step's length (`Time::delta`), not over
    /// the wall clock (a headless app stepped by hand runs its 30 Hz steps
    /// as fast as it can).
    pub ticks_per_second: f32,
    /// The trees were held in the last fixed step: a debugger's pause
    /// ([`BtSettings::paused`], no step asked) or the world state still
    /// loading. Their actions were held too ([`Running`](crate::Running)
    /// lists no agent); a game system of its own that moves agents can
    /// hold with them: `.run_if(|s: Res<BtStats>| !s.paused)`.
    pub paused: bool,
    pub(crate) act_start: Option<std::time::Instant>,
}

/// The world values each program reads, looked up once per program and
/// tick ([`publish_world_values`]), shared read-only by every agent that runs
/// it.
#[derive(Resource, Default)]
pub(crate) struct BtWorldValues {
    pub(crate) values: HashMap<bevy::asset::AssetId<BtAsset>, Vec<Option<Value>>>,
    pub(crate) reported: std::collections::HashSet<(bevy::asset::AssetId<BtAsset>, usize)>,
    /// Per tree: its world names no declaration has (once every declared
    /// value is published), as problems for its agents.
    pub(crate) undeclared: HashMap<bevy::asset::AssetId<BtAsset>, Vec<AgentProblem>>,
    /// Bumped when `undeclared` grows: agents bound before get theirs.
    pub(crate) undeclared_gen: u64,
}

/// Runtime settings of the plugin.
#[derive(Resource, Debug, Clone, Copy, Reflect)]
// The reflected type path from before the plugin file was split (scenes
// and remote clients name types by it).
#[type_path = "wyrd_bt::plugin"]
#[reflect(Resource, Debug)]
pub struct BtSettings {
    /// Restarts allowed per agent per tick before it is an error (at most
    /// 255 are counted: a limit above that allows 255).
    pub max_restarts_per_tick: u32,
    /// Record every agent's last N ticks (the flight recorder; `None`, the
    /// default: only agents asked with [`BtAgent::record`](crate::BtAgent::record)).
    pub record_all: Option<usize>,
    /// Trees do not tick, and their actions are held (a debugger's pause:
    /// [`Running`](crate::Running) lists no agent, so the game's action
    /// systems leave them as they are; the rest of the game runs, see
    /// [`BtStats::paused`]).
    pub paused: bool,
    /// While paused: ticks still to run (a debugger's single step).
    pub steps: u32,
    /// Trees wait for their world: no tree ticks while the declared world
    /// values are still loading ([`Declared::Loading`]: the world state's
    /// flags files), so that an agent's first tick, its clock and its first
    /// decisions do not depend on how fast the files load. Default on.
    pub wait_for_world: bool,
}
