//! The windowed game: a hub to walk around (NPCs, the portal), runs with
//! towers to destroy, a dialogue box, the quest log and coins.
//!
//! Keys: WASD / arrows move, E talks to a nearby NPC, 1 / 2 answer, Space
//! destroys a nearby enemy, walking into the portal starts or ends a run,
//! Escape closes the dialogue.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};

use crate::game::{
    Coins, DialogueView, GameConfig, Mode, NpcManager, QuestManager, RunState, ShopManager,
    add_game, apply,
};
use wyrd::prelude::*;

#[derive(Component)]
struct Player;

#[derive(Component)]
struct Portal;

#[derive(Component)]
struct NpcSprite(String);

#[derive(Component)]
struct Enemy(String);

#[derive(Component)]
enum Hud {
    Quests,
    Status,
    Dialogue,
    Help,
}

/// A message for the player (a command that made no sense).
#[derive(Resource, Default)]
struct Toast(String, f32);

/// Drives the README screenshot: talk to the Drone, capture, quit.
#[derive(Resource)]
struct ScreenshotPlan {
    path: PathBuf,
    frame: u32,
}

const SPEED: f32 = 320.0;
const NEAR: f32 = 80.0;

fn npc_position(name: &str) -> Vec2 {
    match name {
        "Drone" => Vec2::new(-260.0, 40.0),
        "Smith" => Vec2::new(260.0, 40.0),
        _ => Vec2::new(0.0, -120.0),
    }
}

/// Opens the window and plays.
pub fn run(
    config: &GameConfig,
    screenshot: Option<PathBuf>,
    inspector: bool,
    remote: Option<u16>,
) -> Result<(), String> {
    let mut app = App::new();
    app.add_plugins(crate::common::window_plugins(
        "Wyrd - the Drone quest",
        &config.assets,
    ));
    add_game(&mut app, config)?;
    crate::common::add_remote(&mut app, remote);
    app.add_plugins(WyrdInspectorPlugin {
        // "save to file" writes breakpoints into the game's assets.
        assets: config.assets.clone(),
        ..Default::default()
    })
    .init_resource::<Toast>()
    .add_systems(Startup, setup)
    .add_systems(
        Update,
        (
            move_player,
            interact,
            sync_npcs,
            sync_enemies,
            update_hud,
            portal,
        )
            .chain(),
    )
    .add_systems(OnEnter(Mode::Hub), reset_player)
    .add_systems(OnEnter(Mode::Run), reset_player);
    if inspector {
        // Open the inspector once at start (for screenshots and demos).
        app.add_systems(
            Update,
            |mut state: ResMut<wyrd::inspector::InspectorState>, mut done: Local<bool>| {
                if !*done {
                    state.open = true;
                    *done = true;
                }
            },
        );
    }
    if let Some(path) = screenshot {
        app.insert_resource(ScreenshotPlan { path, frame: 0 })
            .add_systems(Update, take_screenshot);
    }
    app.run();
    Ok(())
}

fn setup(mut commands: Commands) {
    commands.spawn(Camera2d);
    commands.spawn((
        Player,
        Sprite::from_color(Color::srgb(0.3, 0.6, 1.0), Vec2::splat(28.0)),
        Transform::from_xyz(0.0, -200.0, 2.0),
    ));
    commands
        .spawn((
            Portal,
            Sprite::from_color(Color::srgb(0.6, 0.3, 0.9), Vec2::new(80.0, 24.0)),
            Transform::from_xyz(0.0, 260.0, 1.0),
        ))
        .with_children(|c| {
            c.spawn((
                Text2d::new("portal"),
                TextFont {
                    font_size: FontSize::Px(14.0),
                    ..Default::default()
                },
                Transform::from_xyz(0.0, -26.0, 1.0),
            ));
        });
    let text = |size: f32| TextFont {
        font_size: FontSize::Px(size),
        ..Default::default()
    };
    commands.spawn((
        Hud::Quests,
        Text::new(""),
        text(18.0),
        Node {
            position_type: PositionType::Absolute,
            top: px(12),
            left: px(12),
            ..Default::default()
        },
    ));
    commands.spawn((
        Hud::Status,
        Text::new(""),
        text(18.0),
        Node {
            position_type: PositionType::Absolute,
            top: px(12),
            right: px(12),
            ..Default::default()
        },
    ));
    commands.spawn((
        Hud::Help,
        Text::new(""),
        text(14.0),
        TextColor(Color::srgb(0.7, 0.7, 0.7)),
        Node {
            position_type: PositionType::Absolute,
            bottom: px(8),
            left: px(12),
            ..Default::default()
        },
    ));
    commands.spawn((
        Hud::Dialogue,
        Text::new(""),
        text(20.0),
        BackgroundColor(Color::srgba(0.05, 0.05, 0.1, 0.9)),
        Node {
            position_type: PositionType::Absolute,
            bottom: px(40),
            left: px(200),
            right: px(200),
            padding: UiRect::all(px(16)),
            ..Default::default()
        },
        Visibility::Hidden,
    ));
}

fn reset_player(mut player: Query<&mut Transform, With<Player>>) {
    for mut t in &mut player {
        t.translation = Vec3::new(0.0, -200.0, 2.0);
    }
}

fn move_player(
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    view: Res<DialogueView>,
    mut player: Query<&mut Transform, With<Player>>,
) {
    if view.open {
        return;
    }
    let mut dir = Vec2::ZERO;
    for (keys_for, d) in [
        ([KeyCode::KeyW, KeyCode::ArrowUp], Vec2::Y),
        ([KeyCode::KeyS, KeyCode::ArrowDown], -Vec2::Y),
        ([KeyCode::KeyA, KeyCode::ArrowLeft], -Vec2::X),
        ([KeyCode::KeyD, KeyCode::ArrowRight], Vec2::X),
    ] {
        if keys.any_pressed(keys_for) {
            dir += d;
        }
    }
    for mut t in &mut player {
        let p = t.translation.truncate() + dir.normalize_or_zero() * SPEED * time.delta_secs();
        let p = p.clamp(Vec2::new(-600.0, -320.0), Vec2::new(600.0, 320.0));
        t.translation = p.extend(2.0);
    }
}

fn queue(commands: &mut Commands, line: String) {
    commands.queue(move |world: &mut World| {
        if let Err(e) = apply(world, &line) {
            world.resource_mut::<Toast>().0 = e;
            world.resource_mut::<Toast>().1 = 3.0;
        }
    });
}

fn interact(
    mut commands: Commands,
    keys: Res<ButtonInput<KeyCode>>,
    mode: Res<State<Mode>>,
    mut view: ResMut<DialogueView>,
    player: Query<&Transform, With<Player>>,
    npcs: Query<(&NpcSprite, &Transform)>,
    enemies: Query<(&Enemy, &Transform)>,
) {
    let Ok(p) = player.single() else { return };
    let p = p.translation.truncate();
    if view.open {
        if keys.just_pressed(KeyCode::Escape)
            || (view.choices.is_empty() && keys.just_pressed(KeyCode::KeyE))
        {
            view.open = false;
        }
        for (i, key) in [KeyCode::Digit1, KeyCode::Digit2, KeyCode::Digit3]
            .into_iter()
            .enumerate()
        {
            if keys.just_pressed(key)
                && let Some((option, _)) = view.choices.get(i)
            {
                queue(&mut commands, format!("choose {option}"));
            }
        }
        return;
    }
    match mode.get() {
        Mode::Hub if keys.just_pressed(KeyCode::KeyE) => {
            if let Some((npc, _)) = npcs
                .iter()
                .find(|(_, t)| t.translation.truncate().distance(p) < NEAR)
            {
                queue(&mut commands, format!("talk {}", npc.0));
            }
        }
        Mode::Run if keys.just_pressed(KeyCode::Space) => {
            if let Some((enemy, _)) = enemies
                .iter()
                .find(|(_, t)| t.translation.truncate().distance(p) < NEAR)
            {
                queue(&mut commands, format!("destroy {} 1", enemy.0));
            }
        }
        _ => {}
    }
}

fn portal(
    mut commands: Commands,
    mode: Res<State<Mode>>,
    next: Res<NextState<Mode>>,
    player: Query<&Transform, With<Player>>,
    portal: Query<&Transform, With<Portal>>,
) {
    let (Ok(p), Ok(g)) = (player.single(), portal.single()) else {
        return;
    };
    if matches!(*next, NextState::Pending(_)) {
        return;
    }
    if p.translation.truncate().distance(g.translation.truncate()) < 36.0 {
        let line = match mode.get() {
            Mode::Hub => "start_run",
            Mode::Run => "end_run",
        };
        queue(&mut commands, line.into());
    }
}

fn sync_npcs(
    mut commands: Commands,
    mode: Res<State<Mode>>,
    npcs: Res<NpcManager>,
    shown: Query<(Entity, &NpcSprite)>,
) {
    let wanted: Vec<&String> = if *mode.get() == Mode::Hub {
        npcs.npcs.keys().collect()
    } else {
        Vec::new()
    };
    for (e, s) in &shown {
        if !wanted.contains(&&s.0) {
            commands.entity(e).despawn();
        }
    }
    for name in wanted {
        if shown.iter().any(|(_, s)| &s.0 == name) {
            continue;
        }
        let color = if name == "Drone" {
            Color::srgb(1.0, 0.6, 0.1)
        } else {
            Color::srgb(0.6, 0.6, 0.6)
        };
        let pos = npc_position(name);
        commands
            .spawn((
                NpcSprite(name.clone()),
                Sprite::from_color(color, Vec2::splat(40.0)),
                Transform::from_translation(pos.extend(1.0)),
            ))
            .with_children(|c| {
                c.spawn((
                    Text2d::new(name.clone()),
                    TextFont {
                        font_size: FontSize::Px(16.0),
                        ..Default::default()
                    },
                    Transform::from_xyz(0.0, 38.0, 1.0),
                ));
            });
    }
}

fn sync_enemies(mut commands: Commands, run: Res<RunState>, shown: Query<(Entity, &Enemy)>) {
    if !run.is_changed() {
        return;
    }
    for (e, _) in &shown {
        commands.entity(e).despawn();
    }
    let mut i = 0;
    for (kind, n) in &run.enemies {
        for _ in 0..*n {
            let (color, size) = if kind == "tower" {
                (Color::srgb(0.85, 0.2, 0.2), Vec2::new(30.0, 60.0))
            } else {
                (Color::srgb(0.5, 0.1, 0.1), Vec2::splat(26.0))
            };
            let x = -450.0 + (i % 8) as f32 * 128.0;
            let y = 120.0 - (i / 8) as f32 * 110.0;
            commands.spawn((
                Enemy(kind.clone()),
                Sprite::from_color(color, size),
                Transform::from_xyz(x, y, 1.0),
            ));
            i += 1;
        }
    }
}

#[allow(clippy::too_many_arguments, reason = "a Bevy system's parameters")]
fn update_hud(
    time: Res<Time>,
    mode: Res<State<Mode>>,
    quests: Res<QuestManager>,
    content: Res<crate::game::Content>,
    coins: Res<Coins>,
    shop: Res<ShopManager>,
    view: Res<DialogueView>,
    mut toast: ResMut<Toast>,
    state: Res<WorldState>,
    mut hud: Query<(&Hud, &mut Text, Option<&mut Visibility>)>,
    save: Option<Res<wyrd::save::SaveStatus>>,
    problems: Res<crate::game::SaveProblems>,
) {
    toast.1 -= time.delta_secs();
    for (kind, mut text, vis) in &mut hud {
        let s = match kind {
            Hud::Quests => {
                let mut s = String::from("Quests\n");
                for q in &quests.active {
                    let quest = &content.quests[q];
                    let done = state.flag(quest.done_flag.as_str()).unwrap_or(false);
                    let n = state.counter(quest.counter.as_str()).unwrap_or(0);
                    s.push_str(&format!(
                        "{} {} ({}/{})\n",
                        if done { "[x]" } else { "[ ]" },
                        quest.title,
                        n.min(quest.target),
                        quest.target
                    ));
                }
                if !shop.items.is_empty() {
                    let items: Vec<String> = shop
                        .items
                        .iter()
                        .map(|(i, p)| format!("{i} {p}c"))
                        .collect();
                    s.push_str(&format!("\nShop: {}", items.join(", ")));
                }
                s
            }
            Hud::Status => {
                let mode = match mode.get() {
                    Mode::Hub => "Hub",
                    Mode::Run => "Run",
                };
                // The save's state now (a failure in red words), then where
                // the progress was loaded from.
                let (now, loaded) = save
                    .as_ref()
                    .map(|s| (s.summary(), s.load_summary().unwrap_or_default()))
                    .unwrap_or_default();
                let mut text = format!("{mode}   Coins: {}\nSave: {now}\n{loaded}", coins.0);
                // What the loaded documents' values did not fit.
                for p in problems.all() {
                    text.push_str(&format!("\n{p}"));
                }
                text
            }
            Hud::Help => {
                let hint = if toast.1 > 0.0 {
                    format!("{}\n", toast.0)
                } else {
                    String::new()
                };
                format!(
                    "{hint}WASD move - E talk - 1/2 answer - Space attack - portal (purple): start / end a run"
                )
            }
            Hud::Dialogue => {
                let mut s = format!("{}\n", view.npc);
                for l in &view.lines {
                    s.push_str(&format!("  {l}\n"));
                }
                for (i, (_, t)) in view.choices.iter().enumerate() {
                    s.push_str(&format!("  [{}] {t}\n", i + 1));
                }
                if let Some(mut v) = vis {
                    *v = if view.open {
                        Visibility::Visible
                    } else {
                        Visibility::Hidden
                    };
                }
                s
            }
        };
        if text.0 != s {
            text.0 = s;
        }
    }
}

fn take_screenshot(
    mut commands: Commands,
    mut plan: ResMut<ScreenshotPlan>,
    eval: Option<Res<WorldStateEvaluation>>,
    mut player: Query<&mut Transform, With<Player>>,
    mut exit: MessageWriter<AppExit>,
) {
    // Wait for the first evaluation (the Drone is placed by it).
    if eval.is_none_or(|e| e.count == 0) {
        return;
    }
    plan.frame += 1;
    match plan.frame {
        5 => {
            for mut t in &mut player {
                t.translation = (npc_position("Drone") + Vec2::new(50.0, -10.0)).extend(2.0);
            }
            queue(&mut commands, "talk Drone".into());
        }
        60 => {
            commands
                .spawn(Screenshot::primary_window())
                .observe(save_to_disk(plan.path.clone()));
        }
        120 => {
            exit.write(AppExit::Success);
        }
        _ => {}
    }
}
