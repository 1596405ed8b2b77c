//! The windowed skirmish: sprites, behavior labels, the counter, mouse and
//! keyboard play, Ctrl+click selection for the inspector.

use std::path::PathBuf;

use bevy::diagnostic::{DiagnosticPath, DiagnosticsStore};
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy::window::PrimaryWindow;
use wyrd::bt::{BtPlugin, BtStats};
use wyrd::inspector::InspectorState;
use wyrd::prelude::*;

use crate::game::{
    ARENA, Ai, BLAST, Behaviors, GameConfig, Grenades, Player, PlayerIntent, Seat, SpawnRequest,
    Tracers, Tracked, Vehicles, add_game, covers, scripted_player, task_pools,
};

#[derive(Component)]
struct PlayerSprite;

#[derive(Component)]
struct VehicleSprite(usize);

#[derive(Component)]
struct AiLabel;

#[derive(Component)]
struct Counter;

#[derive(Resource)]
struct ShowLabels(bool);

#[derive(Resource)]
struct ScreenshotPlan {
    path: PathBuf,
    frame: u32,
    view: View,
}

/// What the inspector shows in a screenshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum View {
    /// The tree as a list.
    #[default]
    List,
    /// The flight recorder's timeline at an earlier tick.
    Timeline,
    /// The tree as a graph, in its window, fitted.
    Graph,
    /// A breakpoint ("Shoot aborted") that hit: the trees paused, the
    /// timeline at the hit.
    Breakpoint,
}

/// Opens the window and plays.
pub fn run(
    config: &GameConfig,
    agents: usize,
    seed: u64,
    screenshot: Option<(PathBuf, View)>,
    remote: Option<u16>,
) {
    let mut app = App::new();
    app.add_plugins(
        crate::common::window_plugins("Wyrd - squad AI", &config.assets).set(task_pools()),
    )
    .insert_resource(ClearColor(Color::srgb(0.13, 0.14, 0.12)));
    add_game(&mut app, agents, seed);
    crate::common::add_remote(&mut app, remote);
    app.insert_resource(crate::game::Playing);
    app.add_plugins(WyrdInspectorPlugin {
        // "save to file" writes breakpoints into the game's assets.
        assets: config.assets.clone(),
        ..Default::default()
    })
    .insert_resource(ShowLabels(true))
    .add_systems(Startup, setup)
    .add_systems(
        Update,
        (
            attach_sprites,
            sync_sprites,
            update_labels,
            draw_effects,
            update_counter,
        )
            .chain(),
    );
    if let Some((path, view)) = screenshot {
        if view == View::Timeline {
            // Every AI records, so the one shown has a history.
            app.world_mut()
                .resource_mut::<wyrd::bt::BtSettings>()
                .record_all = Some(600);
        }
        // The scripted player plays; the inspector shows an AI in a fight.
        app.insert_resource(ScreenshotPlan {
            path,
            frame: 0,
            view,
        })
        .add_systems(
            FixedUpdate,
            scripted_player.before(wyrd::bt::BtSystems::Sense),
        )
        .add_systems(Update, take_screenshot);
    } else {
        app.add_systems(Update, (input, select_with_click));
    }
    app.run();
}

fn setup(mut commands: Commands) {
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 1.15,
            ..OrthographicProjection::default_2d()
        }),
    ));
    commands.spawn((
        Sprite::from_color(Color::srgb(0.19, 0.22, 0.17), ARENA * 2.0),
        Transform::from_xyz(0.0, 0.0, -2.0),
    ));
    for c in covers() {
        commands.spawn((
            Sprite::from_color(Color::srgb(0.42, 0.42, 0.45), Vec2::new(34.0, 34.0)),
            Transform::from_translation(c.extend(-1.0)),
        ));
    }
    commands.spawn((
        PlayerSprite,
        Sprite::from_color(Color::srgb(0.3, 0.6, 1.0), Vec2::splat(18.0)),
        Transform::from_xyz(0.0, 0.0, 3.0),
    ));
    commands.spawn((
        Counter,
        Text::new(""),
        TextFont {
            font_size: FontSize::Px(16.0),
            ..Default::default()
        },
        BackgroundColor(Color::srgba(0.0, 0.0, 0.0, 0.6)),
        Node {
            position_type: PositionType::Absolute,
            top: px(6),
            left: px(8),
            padding: UiRect::all(px(4)),
            ..Default::default()
        },
    ));
    commands.spawn((
        Text::new(
            "WASD move - mouse aim - click shoot - right click grenade - E vehicle - Ctrl+click select - N +1000 AIs - L labels - F1 inspector",
        ),
        TextFont {
            font_size: FontSize::Px(13.0),
            ..Default::default()
        },
        TextColor(Color::srgb(0.75, 0.75, 0.75)),
        Node {
            position_type: PositionType::Absolute,
            bottom: px(6),
            left: px(8),
            ..Default::default()
        },
    ));
}

fn cursor_world(
    window: &Query<&Window, With<PrimaryWindow>>,
    camera: &Query<(&Camera, &GlobalTransform)>,
) -> Option<Vec2> {
    let cursor = window.single().ok()?.cursor_position()?;
    let (camera, at) = camera.single().ok()?;
    camera.viewport_to_world_2d(at, cursor).ok()
}

#[allow(clippy::too_many_arguments, reason = "a Bevy system's parameters")]
fn input(
    keys: Res<ButtonInput<KeyCode>>,
    mouse: Res<ButtonInput<MouseButton>>,
    window: Query<&Window, With<PrimaryWindow>>,
    camera: Query<(&Camera, &GlobalTransform)>,
    inspector: Res<InspectorState>,
    mut intent: ResMut<PlayerIntent>,
    mut spawn: ResMut<SpawnRequest>,
    mut labels: ResMut<ShowLabels>,
) {
    let mut dir = Vec2::ZERO;
    for (key, d) in [
        (KeyCode::KeyA, Vec2::NEG_X),
        (KeyCode::KeyD, Vec2::X),
        (KeyCode::KeyW, Vec2::Y),
        (KeyCode::KeyS, Vec2::NEG_Y),
    ] {
        if keys.pressed(key) {
            dir += d;
        }
    }
    intent.dir = dir;
    if let Some(aim) = cursor_world(&window, &camera) {
        intent.aim = aim;
    }
    let ctrl = keys.pressed(KeyCode::ControlLeft) || keys.pressed(KeyCode::ControlRight);
    // Clicks over the inspector, or with Ctrl (selection), are not shots.
    let free = !inspector.wants_pointer && !ctrl;
    intent.shoot = free && mouse.pressed(MouseButton::Left);
    intent.grenade |= free && mouse.just_pressed(MouseButton::Right);
    intent.toggle_vehicle |= keys.just_pressed(KeyCode::KeyE);
    if keys.just_pressed(KeyCode::KeyN) {
        spawn.0 += 1000;
    }
    if keys.just_pressed(KeyCode::KeyL) {
        labels.0 = !labels.0;
    }
}

fn select_with_click(
    keys: Res<ButtonInput<KeyCode>>,
    mouse: Res<ButtonInput<MouseButton>>,
    window: Query<&Window, With<PrimaryWindow>>,
    camera: Query<(&Camera, &GlobalTransform)>,
    ais: Query<(Entity, &Ai)>,
    mut inspector: ResMut<InspectorState>,
) {
    let ctrl = keys.pressed(KeyCode::ControlLeft) || keys.pressed(KeyCode::ControlRight);
    if !ctrl || !mouse.just_pressed(MouseButton::Left) {
        return;
    }
    let Some(at) = cursor_world(&window, &camera) else {
        return;
    };
    if let Some((e, _)) = ais
        .iter()
        .map(|(e, ai)| (e, ai.pos.distance(at)))
        .filter(|(_, d)| *d < 24.0)
        .min_by(|a, b| a.1.total_cmp(&b.1))
    {
        inspector.selected = Some(e);
        inspector.open = true;
    }
}

fn ai_color(ai: &Ai) -> Color {
    match (ai.leader, ai.seat) {
        (true, _) => Color::srgb(0.95, 0.75, 0.2),
        (false, Seat::Infantry) => Color::srgb(0.85, 0.35, 0.3),
        (false, _) => Color::srgb(0.75, 0.45, 0.75),
    }
}

fn attach_sprites(
    mut commands: Commands,
    show: Res<ShowLabels>,
    new: Query<(Entity, &Ai), Added<Ai>>,
    vehicles: Res<Vehicles>,
    shown: Query<&VehicleSprite>,
) {
    for (e, ai) in &new {
        commands
            .entity(e)
            .insert((
                Sprite::from_color(
                    ai_color(ai),
                    Vec2::splat(if ai.leader { 16.0 } else { 12.0 }),
                ),
                Transform::from_translation(ai.pos.extend(2.0)),
            ))
            .with_children(|c| {
                c.spawn((
                    AiLabel,
                    Text2d::new(""),
                    TextFont {
                        font_size: FontSize::Px(11.0),
                        ..Default::default()
                    },
                    TextColor(Color::srgb(0.9, 0.9, 0.8)),
                    Transform::from_xyz(0.0, 16.0, 5.0),
                    if show.0 {
                        Visibility::Inherited
                    } else {
                        Visibility::Hidden
                    },
                ));
            });
    }
    for i in shown.iter().count()..vehicles.0.len() {
        commands.spawn((
            VehicleSprite(i),
            Sprite::from_color(Color::srgb(0.35, 0.55, 0.3), Vec2::new(40.0, 24.0)),
            Transform::from_translation(vehicles.0[i].pos.extend(1.0)),
        ));
    }
}

#[allow(clippy::type_complexity, reason = "a Bevy query")]
fn sync_sprites(
    player: Res<Player>,
    vehicles: Res<Vehicles>,
    inspector: Res<InspectorState>,
    mut ais: Query<(Entity, &Ai, &mut Transform, &mut Sprite), Without<VehicleSprite>>,
    mut vehicle_sprites: Query<(&VehicleSprite, &mut Transform), Without<Ai>>,
    mut player_sprite: Query<
        &mut Transform,
        (With<PlayerSprite>, Without<Ai>, Without<VehicleSprite>),
    >,
) {
    for (e, ai, mut t, mut sprite) in &mut ais {
        // Riders sit around their vehicle.
        let offset = match ai.seat {
            Seat::Infantry => Vec2::ZERO,
            _ => Vec2::new(((e.index_u32() % 3) as f32 - 1.0) * 10.0, 4.0),
        };
        t.translation = (ai.pos + offset).extend(2.0);
        let color = if inspector.selected == Some(e) {
            Color::WHITE
        } else {
            ai_color(ai)
        };
        if sprite.color != color {
            sprite.color = color;
        }
    }
    for (v, mut t) in &mut vehicle_sprites {
        if let Some(v) = vehicles.0.get(v.0) {
            t.translation = v.pos.extend(1.0);
        }
    }
    for mut t in &mut player_sprite {
        t.translation = player.pos.extend(3.0);
    }
}

fn update_labels(
    behaviors: Res<Behaviors>,
    show: Res<ShowLabels>,
    changed: Query<(&Tracked, &Children), Changed<Tracked>>,
    all: Query<&Children, With<Tracked>>,
    mut labels: Query<(&mut Text2d, &mut Visibility), With<AiLabel>>,
) {
    for (tracked, children) in &changed {
        for c in children.iter() {
            if let Ok((mut text, _)) = labels.get_mut(c) {
                text.0 = behaviors.label(tracked.label).to_owned();
            }
        }
    }
    if show.is_changed() {
        let v = if show.0 {
            Visibility::Inherited
        } else {
            Visibility::Hidden
        };
        for children in &all {
            for c in children.iter() {
                if let Ok((_, mut vis)) = labels.get_mut(c) {
                    *vis = v;
                }
            }
        }
    }
}

fn draw_effects(mut gizmos: Gizmos, grenades: Res<Grenades>, tracers: Res<Tracers>) {
    for g in &grenades.live {
        gizmos.circle_2d(g.pos, 5.0, Color::srgb(0.9, 0.9, 0.3));
        gizmos.circle_2d(g.pos, BLAST, Color::srgba(0.9, 0.6, 0.2, 0.25));
    }
    for (pos, age) in &grenades.blasts {
        gizmos.circle_2d(*pos, BLAST * (0.5 + age), Color::srgb(1.0, 0.6, 0.2));
    }
    for (from, to, _, by_player) in &tracers.0 {
        let color = if *by_player {
            Color::srgb(0.6, 0.85, 1.0)
        } else {
            Color::srgba(1.0, 0.5, 0.4, 0.6)
        };
        gizmos.line_2d(*from, *to, color);
    }
}

fn update_counter(
    stats: Res<BtStats>,
    diagnostics: Res<DiagnosticsStore>,
    player: Res<Player>,
    ais: Query<(), With<Ai>>,
    mut counter: Query<&mut Text, With<Counter>>,
) {
    // The tick's timings as Bevy's diagnostics smooth them.
    let smoothed = |path: &DiagnosticPath| {
        diagnostics
            .get(path)
            .and_then(|d| d.smoothed())
            .unwrap_or(0.0)
    };
    let (trees, actions) = (smoothed(&BtPlugin::DECIDE_MS), smoothed(&BtPlugin::ACT_MS));
    let text = format!(
        "agents {}   tick {:.2} ms (trees {:.2} + game actions {:.2})   {:.0} agent-ticks/s\nhealth {:.0}{}",
        ais.iter().count(),
        trees + actions,
        trees,
        actions,
        stats.ticks_per_second,
        player.health.max(0.0),
        if player.vehicle.is_some() {
            "   driving"
        } else {
            ""
        },
    );
    for mut t in &mut counter {
        t.0 = text.clone();
    }
}

#[allow(clippy::too_many_arguments, reason = "a Bevy system's parameters")]
fn take_screenshot(
    mut commands: Commands,
    mut plan: ResMut<ScreenshotPlan>,
    time: Res<Time<Virtual>>,
    ais: Query<(Entity, &Name, &Tracked)>,
    agents: Query<&wyrd::bt::BtAgent>,
    behaviors: Res<Behaviors>,
    mut inspector: ResMut<InspectorState>,
    mut breakpoints: ResMut<wyrd::bt::BtBreakpoints>,
    settings: Res<wyrd::bt::BtSettings>,
    mut exit: MessageWriter<AppExit>,
) {
    // Some seconds into the fight: squads engaged, one in its vehicle.
    if time.elapsed_secs() < 9.0 {
        return;
    }
    if plan.view == View::Breakpoint && plan.frame == 1 && !settings.paused {
        // Waiting for the breakpoint to hit.
        if time.elapsed_secs() > 60.0 {
            error!("the breakpoint did not hit in a minute");
            exit.write(AppExit::error());
        }
        return;
    }
    plan.frame += 1;
    match plan.frame {
        1 => {
            // An AI in a fight, alone in the agent list.
            inspector.open = true;
            if let Some((e, name, _)) = ais
                .iter()
                .find(|(_, _, t)| behaviors.label(t.label).starts_with("engage/"))
            {
                inspector.selected = Some(e);
                inspector.ui.agent_filter = format!("{} ", name.as_str());
            }
            match plan.view {
                View::List => {}
                View::Graph => {
                    inspector.ui.graph = true;
                    inspector.ui.graph_view.fit();
                }
                View::Breakpoint => {
                    // Any AI's Shoot aborted (the panel follows the hit).
                    inspector.ui.agent_filter.clear();
                    breakpoints.set(
                        "squad_ai/combat.bt.ron",
                        wyrd::bt::BreakpointsDef {
                            breakpoints: vec![wyrd::bt::BreakpointDef {
                                name: Some("Shoot aborted".into()),
                                action: Some("Shoot".into()),
                                on: Some(wyrd::bt::BreakOn::Aborted),
                                ..Default::default()
                            }],
                        },
                    );
                }
                View::Timeline => {
                    // A second back in the recording.
                    let now = inspector
                        .selected
                        .and_then(|e| agents.get(e).ok())
                        .map_or(0, |a| a.state().ticks());
                    inspector.shown_tick = Some(now.saturating_sub(30).max(1));
                }
            }
        }
        30 => {
            commands
                .spawn(Screenshot::primary_window())
                .observe(save_to_disk(plan.path.clone()));
        }
        90 => {
            exit.write(AppExit::Success);
        }
        _ => {}
    }
}
