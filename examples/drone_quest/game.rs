//! The Drone quest's game: hub and run states, the managers the seed names
//! (quests, NPCs and dialogue, shop, combat), the game's evaluation nodes,
//! and the commands a player (or a script) gives.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use serde::{Deserialize, Serialize};
use wyrd::prelude::*;
use wyrd::save::{CompletedEvents, DocumentLoad, SaveFailed, SaveFs, SaveSlot, SaveStatus};

/// Hub or run.
#[derive(States, Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// Between runs: NPCs, quests, the portal.
    #[default]
    Hub,
    /// A run: towers and guards to destroy.
    Run,
}

/// A quest from `quests.ron`.
#[derive(Debug, Clone, Deserialize)]
pub struct Quest {
    /// Id used by `AddQuest`.
    pub id: String,
    /// Shown in the quest log.
    pub title: String,
    /// Enemy kind that counts.
    pub kind: String,
    /// The counter it advances.
    pub counter: String,
    /// Value that completes it.
    pub target: i64,
    /// Flag set on completion.
    pub done_flag: String,
}

/// A dialogue choice.
#[derive(Debug, Clone, Deserialize)]
pub struct Choice {
    /// What `choose` names.
    pub option: String,
    /// What the player says.
    pub text: String,
    /// Flag set when chosen.
    #[serde(default)]
    pub sets: Option<String>,
    /// Coins rewarded (once: only when the flag is newly set).
    #[serde(default)]
    pub coins: i64,
    /// The NPC leaves the hub.
    #[serde(default)]
    pub leaves: bool,
}

/// A piece of dialogue from `dialogue.ron`.
#[derive(Debug, Clone, Deserialize)]
pub struct Dialogue {
    /// Id used by `AddNPCDialogue`.
    pub id: String,
    /// Who says it.
    pub npc: String,
    /// The lines.
    pub lines: Vec<String>,
    /// Flag set once exhausted.
    #[serde(default)]
    pub sets: Option<String>,
    /// Choices offered at the end.
    #[serde(default)]
    pub choices: Vec<Choice>,
}

/// Quests and dialogue, read from `assets/drone_quest/`.
#[derive(Resource, Debug, Clone)]
pub struct Content {
    /// Quests by id.
    pub quests: BTreeMap<String, Quest>,
    /// Dialogue by id.
    pub dialogue: BTreeMap<String, Dialogue>,
}

impl Content {
    /// Reads the content files; errors name the file and position.
    pub fn load(assets: &Path) -> Result<Content, String> {
        fn read<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, String> {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            ron::from_str(&text).map_err(|e| {
                format!(
                    "{}:{}:{}: {}",
                    path.display(),
                    e.span.start.line,
                    e.span.start.col,
                    e.code
                )
            })
        }
        let quests: Vec<Quest> = read(&assets.join("drone_quest/quests.ron"))?;
        let dialogue: Vec<Dialogue> = read(&assets.join("drone_quest/dialogue.ron"))?;
        Ok(Content {
            quests: quests.into_iter().map(|q| (q.id.clone(), q)).collect(),
            dialogue: dialogue.into_iter().map(|d| (d.id.clone(), d)).collect(),
        })
    }
}

/// Active quests (given by the last evaluation).
#[derive(Resource, Debug, Default)]
pub struct QuestManager {
    /// Quest ids, in the order given.
    pub active: Vec<String>,
}

impl WorldStateManager for QuestManager {
    fn reset_world_state(&mut self) {
        self.active.clear();
    }
}

/// NPCs in the hub and their current dialogue (given by the last evaluation).
#[derive(Resource, Debug, Default)]
pub struct NpcManager {
    /// NPC name to its dialogue id.
    pub npcs: BTreeMap<String, String>,
    /// A dialogue waiting for `choose`: (NPC, dialogue id).
    pub pending_choice: Option<(String, String)>,
}

impl WorldStateManager for NpcManager {
    fn reset_world_state(&mut self) {
        self.npcs.clear();
        self.pending_choice = None;
    }
}

/// Items for sale (given by the last evaluation).
#[derive(Resource, Debug, Default)]
pub struct ShopManager {
    /// Item and price.
    pub items: Vec<(String, i64)>,
}

impl WorldStateManager for ShopManager {
    fn reset_world_state(&mut self) {
        self.items.clear();
    }
}

/// Extra enemies for runs (given by the last evaluation).
#[derive(Resource, Debug, Default)]
pub struct CombatManager {
    /// Kind and count.
    pub extra: Vec<(String, i64)>,
}

impl WorldStateManager for CombatManager {
    fn reset_world_state(&mut self) {
        self.extra.clear();
    }
}

/// The dialogue box: what the last `talk` showed.
#[derive(Resource, Debug, Default, Clone)]
pub struct DialogueView {
    /// Who speaks.
    pub npc: String,
    /// The lines.
    pub lines: Vec<String>,
    /// Options and their text.
    pub choices: Vec<(String, String)>,
    /// Whether the box is shown.
    pub open: bool,
}

/// Enemies left in the current run.
#[derive(Resource, Debug, Default)]
pub struct RunState {
    /// Kind to count.
    pub enemies: BTreeMap<String, i64>,
}

/// Towers every run starts with.
pub const TOWERS_PER_RUN: i64 = 6;

/// The most enemies of one kind other than towers a run can have (the
/// evaluation adds a few guards).
pub const MAX_ENEMIES_OF_A_KIND: i64 = 99;

/// The player's coins: persisted in the profile document (not world
/// state), committed together with the world state.
#[derive(Resource, Debug, Default, Clone, Copy)]
pub struct Coins(pub i64);

/// The rewards already paid, saved in the profile with the coins they
/// paid: a reward is paid once, whatever happens to the other documents.
#[derive(Resource, Debug, Default, Clone)]
pub struct RewardsPaid(pub CompletedEvents);

/// What was wrong with the loaded documents' values (shown on stderr and
/// the HUD).
#[derive(Resource, Debug, Default, Clone)]
pub struct SaveProblems {
    /// `profile.json`'s.
    pub profile: Vec<String>,
    /// `run.json`'s, found when the saved run continues.
    pub run: Vec<String>,
}

impl SaveProblems {
    /// Every problem, one line each.
    pub fn all(&self) -> impl Iterator<Item = &String> {
        self.profile.iter().chain(&self.run)
    }
}

/// The profile save document (`profile.json`), in the same save slot as
/// the world state: coins and quest flags are one commit.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(rename_all = "PascalCase")]
pub struct PlayerProfile {
    /// Schema version.
    pub schema_version: u32,
    /// Coins.
    pub coins: i64,
    /// The rewards that paid the coins (`reward:DIALOGUE/OPTION`): the
    /// record lives in the same document as the coins (see `wyrd_save`'s
    /// "Effects that happen once").
    #[serde(default)]
    pub completed_event_ids: CompletedEvents,
}

impl SaveDocument for PlayerProfile {
    const SCHEMA_VERSION: u32 = 1;
    fn fresh() -> Self {
        PlayerProfile {
            schema_version: 1,
            ..Default::default()
        }
    }
    fn capture(world: &mut World) -> Self {
        PlayerProfile {
            schema_version: 1,
            coins: world.get_resource::<Coins>().map_or(0, |c| c.0),
            completed_event_ids: world
                .get_resource::<RewardsPaid>()
                .map(|r| r.0.clone())
                .unwrap_or_default(),
        }
    }
    fn apply(self, world: &mut World, load: &DocumentLoad) {
        let mut problems = Vec::new();
        let coins = if self.coins < 0 {
            problems.push(format!(
                "{}: Coins is {}, below 0; read as 0",
                load.file, self.coins
            ));
            0
        } else {
            self.coins
        };
        world.insert_resource(Coins(coins));
        world.insert_resource(RewardsPaid(self.completed_event_ids));
        world.get_resource_or_init::<SaveProblems>().profile = problems;
    }
}

/// Where the game keeps its files.
#[derive(Debug, Clone)]
pub struct GameConfig {
    /// The assets folder.
    pub assets: PathBuf,
    /// The save folder.
    pub save_dir: PathBuf,
    /// The file system saves go through (`None`: the real one; tests use
    /// `wyrd::save::testing::MemFs`).
    pub fs: Option<Arc<dyn SaveFs>>,
}

impl GameConfig {
    /// Assets and save folder on the real file system.
    pub fn new(assets: PathBuf, save_dir: PathBuf) -> Self {
        GameConfig {
            assets,
            save_dir,
            fs: None,
        }
    }
}

/// Builds the game app, headless (no window, no rendering).
pub fn build_app(config: &GameConfig) -> Result<App, String> {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: config.assets.to_string_lossy().into_owned(),
            ..Default::default()
        },
        StatesPlugin,
    ));
    add_game(&mut app, config)?;
    Ok(app)
}

/// Adds the game (everything but the engine's own plugins).
pub fn add_game(app: &mut App, config: &GameConfig) -> Result<(), String> {
    let content = Content::load(&config.assets)?;
    app.insert_resource(Time::<Fixed>::from_hz(30.0))
        .add_plugins(WyrdPlugins.set(WorldStatePlugin::with_files([
            "drone_quest/world_state.flags.ron",
            "drone_quest/smith.flags.ron",
        ])))
        .add_plugins({
            let save = WorldStateSavePlugin::new(&config.save_dir, SaveKey::from_env_or_dev());
            match &config.fs {
                Some(fs) => save.with_fs(fs.clone()),
                None => save,
            }
        })
        // Coins live in their own document of the same slot: one commit per
        // save point, so coins and the quest flag never disagree on disk.
        .add_save_document::<PlayerProfile>("profile.json")
        .add_save_document::<RunDocument>("run.json")
        .init_resource::<ResumeRun>()
        .init_resource::<SavedRun>()
        .add_plugins(WorldStateEvaluationPlugin::new(
            "drone_quest/evaluation.bt.ron",
        ))
        .insert_resource(content)
        .init_resource::<QuestManager>()
        .init_resource::<NpcManager>()
        .init_resource::<ShopManager>()
        .init_resource::<CombatManager>()
        .init_resource::<RunState>()
        .init_resource::<Coins>()
        .init_resource::<RewardsPaid>()
        .init_resource::<SaveProblems>()
        .add_world_state_manager::<QuestManager>()
        .add_world_state_manager::<NpcManager>()
        .add_world_state_manager::<ShopManager>()
        .add_world_state_manager::<CombatManager>()
        .init_state::<Mode>()
        .add_systems(
            OnEnter(Mode::Hub),
            |mut w: MessageWriter<EvaluateWorldState>, mut run: ResMut<RunState>| {
                run.enemies.clear();
                w.write(EvaluateWorldState);
            },
        )
        .add_systems(OnEnter(Mode::Run), start_run)
        .add_systems(Update, resume_run.run_if(world_state_ready))
        .add_systems(Update, mark_run_changed.after(resume_run))
        .init_resource::<DialogueView>()
        .add_systems(Last, report_save_failures.after(SaveSystems::Write));
    register_nodes(app);
    Ok(())
}

wyrd::bt::bt_action! {
    /// Seed: "Adds an active quest to the QuestManager."
    pub struct AddQuest { pub quest: Sym }
    /// Seed: "Adds a new dialogue piece or an NPC with a dialogue to the
    /// world."
    pub struct AddNPCDialogue { pub npc: Sym, pub dialogue: Sym }
    /// Seed: "Adds a new item to a given shop."
    pub struct AddShopItem { pub item: Sym, pub price: i64 }
    /// Seed: "Adds a combatant NPC to spawn in a given biome/wave/scenario."
    pub struct AddCombatNPC { pub kind: Sym, pub count: i64 = 1 }
}

/// The game's own evaluation nodes (the suite's extension API), declared
/// once as types: a tree that misspells a parameter does not load.
fn register_nodes(app: &mut App) {
    app.add_world_state_action(|world, AddQuest { quest }: AddQuest| {
        let id = quest.as_str();
        if !world.resource::<Content>().quests.contains_key(id) {
            return Err(format!("unknown quest {id:?}").into());
        }
        let mut quests = world.resource_mut::<QuestManager>();
        if !quests.active.iter().any(|q| q == id) {
            quests.active.push(id.to_owned());
        }
        Ok(NodeEffect::Done)
    })
    .add_world_state_action(|world, AddNPCDialogue { npc, dialogue }: AddNPCDialogue| {
        let (npc, dialogue) = (npc.as_str(), dialogue.as_str());
        match world.resource::<Content>().dialogue.get(dialogue) {
            None => return Err(format!("unknown dialogue {dialogue:?}").into()),
            Some(d) if d.npc != npc => {
                return Err(
                    format!("dialogue {dialogue:?} belongs to {}, not {npc}", d.npc).into(),
                );
            }
            Some(_) => {}
        }
        world
            .resource_mut::<NpcManager>()
            .npcs
            .insert(npc.to_owned(), dialogue.to_owned());
        Ok(NodeEffect::Done)
    })
    .add_world_state_action(|world, AddShopItem { item, price }: AddShopItem| {
        let mut shop = world.resource_mut::<ShopManager>();
        if !shop.items.iter().any(|(i, _)| i == item.as_str()) {
            shop.items.push((item.as_str().to_owned(), price));
        }
        Ok(NodeEffect::Done)
    })
    .add_world_state_action(|world, AddCombatNPC { kind, count }: AddCombatNPC| {
        let mut combat = world.resource_mut::<CombatManager>();
        if !combat.extra.iter().any(|(k, _)| k == kind.as_str()) {
            combat.extra.push((kind.as_str().to_owned(), count));
        }
        Ok(NodeEffect::Done)
    });
}

/// A run in progress, saved with the slot: quitting mid-run and loading
/// again continues it (the towers left, the run's counters).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunDocument {
    /// The schema.
    #[serde(rename = "SchemaVersion")]
    pub schema_version: u32,
    /// Whether a run was in progress.
    #[serde(rename = "InRun")]
    pub in_run: bool,
    /// Enemies left, by kind.
    #[serde(rename = "Enemies")]
    pub enemies: BTreeMap<String, i64>,
    /// The run-scoped counters' values.
    #[serde(rename = "RunCounters")]
    pub counters: Vec<(String, i64)>,
}

impl RunDocument {
    /// The run as it is now.
    fn of(mode: &State<Mode>, run: &RunState, state: Option<&WorldState>) -> RunDocument {
        let in_run = *mode.get() == Mode::Run;
        RunDocument {
            schema_version: 1,
            in_run,
            enemies: if in_run {
                run.enemies.clone()
            } else {
                BTreeMap::new()
            },
            counters: match (in_run, state) {
                (true, Some(ws)) => ws
                    .counters()
                    .iter()
                    .filter(|c| c.scope == Scope::Run)
                    .map(|c| (c.name.to_string(), c.value))
                    .collect(),
                _ => Vec::new(),
            },
        }
    }
}

impl SaveDocument for RunDocument {
    const SCHEMA_VERSION: u32 = 1;
    fn fresh() -> Self {
        RunDocument {
            schema_version: 1,
            ..Default::default()
        }
    }
    fn capture(world: &mut World) -> Self {
        // A saved run that has not continued yet is still the run.
        let doc = match &world.resource::<ResumeRun>().0 {
            Some(pending) => pending.run.clone(),
            None => RunDocument::of(
                world.resource::<State<Mode>>(),
                world.resource::<RunState>(),
                world.get_resource::<WorldState>(),
            ),
        };
        world.resource_mut::<SavedRun>().0 = Some(doc.clone());
        doc
    }
    fn apply(self, world: &mut World, load: &DocumentLoad) {
        world.resource_mut::<SavedRun>().0 = Some(self.clone());
        world.get_resource_or_init::<SaveProblems>().run.clear();
        // The run continues once the world state's files have merged (its
        // counters need their declarations): `resume_run`.
        world.resource_mut::<ResumeRun>().0 = self.in_run.then(|| PendingRun {
            run: self,
            file: load.file.clone(),
        });
    }
}

/// A saved run waiting to continue.
#[derive(Debug, Clone)]
pub struct PendingRun {
    /// The run.
    pub run: RunDocument,
    /// Its file name, for messages.
    pub file: String,
}

/// A saved run to continue once the world state is ready (after loading).
#[derive(Resource, Debug, Default)]
pub struct ResumeRun(pub Option<PendingRun>);

/// The run document last loaded or captured for a save: the run is dirty
/// when it differs.
#[derive(Resource, Debug, Default)]
pub struct SavedRun(pub Option<RunDocument>);

/// The run changed: the slot has something new to save. Compared with what
/// was loaded or last saved, so that loading (or entering the hub with no
/// run) does not count as a change.
fn mark_run_changed(
    run: Res<RunState>,
    mode: Res<State<Mode>>,
    state: Res<WorldState>,
    saved: Res<SavedRun>,
    resume: Res<ResumeRun>,
    slot: Option<ResMut<SaveSlot>>,
) {
    if resume.0.is_some() || !(run.is_changed() || mode.is_changed() || state.is_changed()) {
        return;
    }
    let now = RunDocument::of(&mode, &run, Some(&state));
    let changed = match &saved.0 {
        Some(was) => *was != now,
        None => now != RunDocument::fresh(),
    };
    if changed && let Some(mut slot) = slot {
        slot.mark_dirty();
    }
}

/// A saved run continues once the world state is ready: in a run already
/// (an in-game reload), at once; from the hub, when the run is entered
/// (`start_run`).
fn resume_run(
    mode: Res<State<Mode>>,
    mut next: ResMut<NextState<Mode>>,
    mut resume: ResMut<ResumeRun>,
    mut continued: ContinueRun,
) {
    if resume.0.is_none() {
        return;
    }
    if *mode.get() == Mode::Run {
        if let Some(pending) = resume.0.take() {
            continued.apply(pending);
        }
    } else {
        next.set(Mode::Run);
    }
}

/// What continuing a saved run writes to.
#[derive(bevy::ecs::system::SystemParam)]
struct ContinueRun<'w> {
    state: ResMut<'w, WorldState>,
    run: ResMut<'w, RunState>,
    content: Res<'w, Content>,
    problems: ResMut<'w, SaveProblems>,
}

impl ContinueRun<'_> {
    /// Puts a saved run's enemies and counters back, each checked against
    /// what the game declares: kinds it knows, counts a run can have,
    /// run-scoped counters the flags files declare. What does not fit is
    /// clamped or dropped, and said on stderr and in the HUD.
    fn apply(&mut self, pending: PendingRun) {
        let PendingRun { run: saved, file } = pending;
        let mut problems = Vec::new();
        self.run.enemies.clear();
        for (kind, n) in saved.enemies {
            let known = kind == "tower" || self.content.quests.values().any(|q| q.kind == kind);
            if !known {
                problems.push(format!(
                    "{file}: Enemies has a kind the game does not know, {kind:?} ({n}); dropped"
                ));
                continue;
            }
            let max = if kind == "tower" {
                TOWERS_PER_RUN
            } else {
                MAX_ENEMIES_OF_A_KIND
            };
            let count = n.clamp(0, max);
            if count != n {
                let bound = if n < 0 {
                    "below 0".to_owned()
                } else {
                    format!("above the {max} a run can have")
                };
                problems.push(format!(
                    "{file}: Enemies {kind} is {n}, {bound}; read as {count}"
                ));
            }
            self.run.enemies.insert(kind, count);
        }
        let mut seen = std::collections::BTreeSet::new();
        for (name, v) in saved.counters {
            if !seen.insert(name.clone()) {
                problems.push(format!(
                    "{file}: RunCounters has {name} more than once; the first value is used"
                ));
                continue;
            }
            let scope = self
                .state
                .counters()
                .iter()
                .find(|c| *c.name == *name)
                .map(|c| c.scope);
            match scope {
                None => problems.push(format!(
                    "{file}: RunCounters has {name}, which no flags file declares; dropped"
                )),
                Some(Scope::Meta) => problems.push(format!(
                    "{file}: RunCounters has {name}, which is not run-scoped (world_state.json holds it); dropped"
                )),
                Some(Scope::Run) => {
                    if let Err(e) = self.state.set_counter(name.as_str(), v, "run_resumed") {
                        problems.push(format!("{file}: RunCounters {name}: {e}; dropped"));
                    }
                }
            }
        }
        for p in &problems {
            eprintln!("save: {p}");
        }
        self.problems.run = problems;
    }
}

/// A run begins: run-scoped counters reset, enemies appear; or a saved run
/// continues where it was.
fn start_run(
    ready: Res<WorldStateFiles>,
    combat: Res<CombatManager>,
    mut resume: ResMut<ResumeRun>,
    mut continued: ContinueRun,
) {
    if ready.all_merged()
        && let Some(pending) = resume.0.take()
    {
        continued.apply(pending);
        return;
    }
    continued.state.reset_scope(Scope::Run, "run_start");
    let run = &mut continued.run;
    run.enemies.clear();
    run.enemies.insert("tower".into(), TOWERS_PER_RUN);
    for (kind, n) in &combat.extra {
        *run.enemies.entry(kind.clone()).or_default() += n;
    }
}

/// Runs frames until the state transition and any evaluation are done
/// (bounded by a number of frames, never by the wall clock).
pub fn settle(app: &mut App) {
    let settled = wyrd_test_support::try_run_until(app, wyrd_test_support::LOAD_UPDATES, |w| {
        let ready = w.resource::<WorldStateFiles>().all_merged();
        let eval = w.get_resource::<WorldStateEvaluation>();
        let resumed = w.resource::<ResumeRun>().0.is_none();
        ready && resumed && !eval.is_none_or(|e| e.is_pending() || e.count == 0)
    });
    match settled {
        Ok(_) => app.update(),
        Err(e) => eprintln!("drone_quest: the game did not settle (assets missing?): {e}"),
    }
}

/// Counts a destroyed enemy for the active, unfinished quests of its kind,
/// and completes quests that reach their target.
fn count_kill(world: &mut World, kind: &str) {
    let quests: Vec<Quest> = {
        let content = world.resource::<Content>();
        world
            .resource::<QuestManager>()
            .active
            .iter()
            .filter_map(|id| content.quests.get(id).cloned())
            .collect()
    };
    let mut state = world.resource_mut::<WorldState>();
    for q in quests.iter().filter(|q| q.kind == kind) {
        if state.flag(q.done_flag.as_str()).unwrap_or(true) {
            continue;
        }
        if let Ok(v) = state.add_counter(q.counter.as_str(), 1, "combat_manager")
            && v >= q.target
        {
            let _ = state.set_flag(q.done_flag.as_str(), true, "quest_manager");
        }
    }
}

/// Plays one command and lets the game settle (state change, evaluation).
/// Returns a message for the player when the command is unknown or makes no
/// sense now; `reload` is handled by the caller.
pub fn play(app: &mut App, line: &str) -> Result<(), String> {
    let result = apply(app.world_mut(), line);
    settle(app);
    result
}

/// Applies one command to the world (the window queues these too).
pub fn apply(world: &mut World, line: &str) -> Result<(), String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mode = *world.resource::<State<Mode>>().get();
    match words.as_slice() {
        ["talk", npc] => {
            if mode != Mode::Hub {
                return Err(format!("there is no one to talk to in a run ({npc})"));
            }
            let Some(dialogue_id) = world.resource::<NpcManager>().npcs.get(*npc).cloned() else {
                return Err(format!("no NPC named {npc:?} is in the hub"));
            };
            let dialogue = world.resource::<Content>().dialogue[&dialogue_id].clone();
            for l in &dialogue.lines {
                eprintln!("  {npc}: {l}");
            }
            *world.resource_mut::<DialogueView>() = DialogueView {
                npc: npc.to_string(),
                lines: dialogue.lines.clone(),
                choices: dialogue
                    .choices
                    .iter()
                    .map(|c| (c.option.clone(), c.text.clone()))
                    .collect(),
                open: true,
            };
            if let Some(flag) = &dialogue.sets {
                world
                    .resource_mut::<WorldState>()
                    .set_flag(flag.as_str(), true, "dialogue_manager")
                    .map_err(|e| e.to_string())?;
            }
            if !dialogue.choices.is_empty() {
                for c in &dialogue.choices {
                    eprintln!("  [{}] {}", c.option, c.text);
                }
                world.resource_mut::<NpcManager>().pending_choice =
                    Some((npc.to_string(), dialogue_id));
            }
        }
        ["choose", option] => {
            let Some((npc, dialogue_id)) = world.resource::<NpcManager>().pending_choice.clone()
            else {
                return Err(format!("nobody is waiting for an answer ({option})"));
            };
            let dialogue = world.resource::<Content>().dialogue[&dialogue_id].clone();
            let Some(choice) = dialogue.choices.iter().find(|c| c.option == *option) else {
                let options: Vec<&str> =
                    dialogue.choices.iter().map(|c| c.option.as_str()).collect();
                return Err(format!(
                    "{option:?} is not an answer; try one of {options:?}"
                ));
            };
            eprintln!("  you: {}", choice.text);
            {
                let mut view = world.resource_mut::<DialogueView>();
                view.lines = vec![format!("You: {}", choice.text)];
                view.choices.clear();
            }
            world.resource_mut::<NpcManager>().pending_choice = None;
            if let Some(flag) = &choice.sets {
                world
                    .resource_mut::<WorldState>()
                    .set_flag(flag.as_str(), true, "dialogue_choice")
                    .map_err(|e| e.to_string())?;
            }
            // The reward is paid once: the profile records it beside the
            // coins (one document), so losing the world state's document
            // and playing the quest again pays nothing. Flag, coins and
            // record are saved in one commit, right away.
            let reward = format!("reward:{dialogue_id}/{option}");
            if choice.coins != 0 && world.resource_mut::<RewardsPaid>().0.complete(reward) {
                let mut coins = world.resource_mut::<Coins>();
                coins.0 = coins.0.saturating_add(choice.coins);
                world.write_message(SaveRequest);
            }
            if choice.leaves {
                world.resource_mut::<NpcManager>().npcs.remove(&npc);
            }
        }
        ["start_run"] => {
            if mode != Mode::Hub {
                return Err("already in a run".into());
            }
            world.resource_mut::<NextState<Mode>>().set(Mode::Run);
        }
        ["end_run"] => {
            if mode != Mode::Run {
                return Err("not in a run".into());
            }
            world.resource_mut::<NextState<Mode>>().set(Mode::Hub);
        }
        ["destroy", kind, n] => {
            if mode != Mode::Run {
                return Err(format!("there is nothing to destroy in the hub ({kind})"));
            }
            let n: i64 = n.parse().map_err(|_| format!("{n:?} is not a number"))?;
            let left = world
                .resource::<RunState>()
                .enemies
                .get(*kind)
                .copied()
                .unwrap_or(0);
            if n <= 0 || n > left {
                return Err(format!("there are {left} {kind}(s) left in this run"));
            }
            *world
                .resource_mut::<RunState>()
                .enemies
                .entry(kind.to_string())
                .or_default() -= n;
            for _ in 0..n {
                count_kill(world, kind);
            }
        }
        ["save"] => {
            world.write_message(SaveRequest);
        }
        [] => {}
        _ => {
            return Err(format!(
                "unknown command {line:?} (talk NPC, choose OPTION, start_run, destroy KIND N, end_run, save, reload)"
            ));
        }
    }
    Ok(())
}

/// Blocks until a queued save has landed or failed, and takes its result
/// (the save status says "saved" at once).
pub fn flush_saves(app: &mut App) {
    SaveSlot::finish_writes(app.world_mut());
}

/// Failed saves go to stderr: the player must know progress is not on disk.
fn report_save_failures(mut failed: MessageReader<SaveFailed>) {
    for f in failed.read() {
        eprintln!("save: {}", f.describe());
    }
}

/// One JSON line describing the game after a command.
pub fn snapshot(app: &App, step: usize, cmd: &str) -> String {
    let world = app.world();
    let state = world.resource::<WorldState>();
    let mode = match world.resource::<State<Mode>>().get() {
        Mode::Hub => "hub",
        Mode::Run => "run",
    };
    let npcs = &world.resource::<NpcManager>().npcs;
    let flags: serde_json::Map<String, serde_json::Value> = state
        .flags()
        .iter()
        .map(|f| (f.name.to_string(), f.value.into()))
        .collect();
    let counters: serde_json::Map<String, serde_json::Value> = state
        .counters()
        .iter()
        .map(|c| (c.name.to_string(), c.value.into()))
        .collect();
    let json = serde_json::json!({
        "step": step,
        "cmd": cmd,
        "mode": mode,
        "quests": world.resource::<QuestManager>().active,
        "quest_log": world.resource::<QuestManager>().active.iter()
            .map(|q| world.resource::<Content>().quests[q].title.clone()).collect::<Vec<_>>(),
        "npcs": npcs.keys().collect::<Vec<_>>(),
        "dialogue": npcs.iter().map(|(n, d)| format!("{n}: {d}")).collect::<Vec<_>>(),
        "shop": world.resource::<ShopManager>().items.iter().map(|(i, _)| i.clone()).collect::<Vec<_>>(),
        "enemies": world.resource::<RunState>().enemies,
        "coins": world.resource::<Coins>().0,
        "save": world.get_resource::<SaveStatus>().map(SaveStatus::summary),
        "flags": flags,
        "counters": counters,
    });
    json.to_string()
}

/// Where progress came from, for the player, and what was wrong with it.
pub fn load_report(app: &App) -> String {
    let world = app.world();
    let mut report = match world
        .get_resource::<SaveStatus>()
        .and_then(|s| s.last_load.clone())
    {
        Some(outcome) => outcome.describe(),
        None => "no save loaded".into(),
    };
    let problems = world
        .get_resource::<WorldState>()
        .map(|s| s.save_problems().to_vec())
        .unwrap_or_default()
        .into_iter()
        .chain(world.resource::<SaveProblems>().all().cloned());
    for p in problems {
        report.push_str("; ");
        report.push_str(&p);
    }
    report
}
