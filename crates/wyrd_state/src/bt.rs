//! Publishing the world state to behavior trees (feature `bt`).
//!
//! Every flag and counter is published in [`BtGlobals`] under its name, so
//! trees check them with `Condition(check: World("QST_DST_TOWER_5", Ge, 5))`.

use bevy::app::{App, FixedUpdate, Plugin, PreUpdate};
use bevy::ecs::prelude::*;
use wyrd_bt::{BtGlobals, BtSystems};

use crate::{WorldState, WorldStateSystems};

/// Keeps [`BtGlobals`] in step with [`WorldState`]. Add it with both
/// [`WorldStatePlugin`](crate::WorldStatePlugin) and `BtPlugin`.
#[derive(Debug, Clone, Default)]
pub struct WorldStateBtPlugin;

impl Plugin for WorldStateBtPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<BtGlobals>()
            .add_systems(PreUpdate, publish.after(WorldStateSystems::SyncAssets))
            .add_systems(FixedUpdate, publish.in_set(BtSystems::Sense));
    }
}

/// Publishes values when the world state changed (cheap otherwise).
pub fn publish(state: Res<WorldState>, mut globals: ResMut<BtGlobals>) {
    if !state.is_changed() {
        return;
    }
    for f in state.flags() {
        globals.set(&f.name, f.value);
    }
    for c in state.counters() {
        globals.set(&c.name, c.value);
    }
}
