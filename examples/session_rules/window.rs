//! The windowed session: the map, the car, the objectives on screen and the
//! inspector showing the session's rule flags live.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use wyrd::bt::RuleFlags;
use wyrd::inspector::InspectorState;
use wyrd::prelude::*;

use crate::game::{
    ARENA, Autopilot, Car, DriverInput, GameConfig, PLACES, RADIUS, SPEED_LIMIT, SessionState,
    Step, add_game, flags_of,
};

#[derive(Component)]
struct CarSprite;

#[derive(Component)]
struct Hud;

#[derive(Component)]
struct Log;

/// Drives the README screenshot: play the drive, capture after the
/// deliveries, quit.
#[derive(Resource)]
struct ScreenshotPlan {
    path: PathBuf,
    frames_after: u32,
}

/// The objectives shown on screen: (rule path, what the player reads).
const OBJECTIVES: [(&str, &str); 9] = [
    ("session/objectives/drive_to_a", "Drive to A"),
    (
        "session/objectives/wait_for_passengers",
        "Wait at A for 3 passengers",
    ),
    ("session/objectives/deliveries", "Deliveries (any order):"),
    ("session/objectives/deliveries/parcel_1", "  parcel to P1"),
    ("session/objectives/deliveries/parcel_2", "  parcel to P2"),
    (
        "session/objectives/deliveries/speed_limit_held",
        "  keep under the speed limit",
    ),
    ("session/objectives/route", "Route (chosen before):"),
    (
        "session/objectives/route/scenic/visit_lookout",
        "  scenic: the lookout",
    ),
    (
        "session/objectives/route/express_tunnel",
        "  express: the tunnel",
    ),
];

/// Opens the window and plays (with the keyboard, or the autopilot).
pub fn run(
    config: &GameConfig,
    pilot: Option<Vec<Step>>,
    screenshot: Option<PathBuf>,
    remote: Option<u16>,
) {
    let mut app = App::new();
    app.add_plugins(crate::common::window_plugins(
        "Wyrd - session rules",
        &config.assets,
    ))
    .insert_resource(ClearColor(Color::srgb(0.16, 0.2, 0.17)));
    add_game(&mut app);
    crate::common::add_remote(&mut app, remote);
    app.insert_resource(crate::game::Playing)
        .add_plugins(WyrdInspectorPlugin {
            // "save to file" writes breakpoints into the game's assets.
            assets: config.assets.clone(),
            ..Default::default()
        })
        .add_systems(Startup, setup)
        .add_systems(Update, (keyboard, show_inspector, sync_car, update_hud));
    if let Some(steps) = pilot {
        app.insert_resource(Autopilot::new(steps));
    }
    if let Some(path) = screenshot {
        // Play the drive faster so the screenshot comes sooner.
        app.insert_resource(ScreenshotPlan {
            path,
            frames_after: 0,
        })
        .add_systems(Startup, |mut time: ResMut<Time<Virtual>>| {
            time.set_relative_speed(3.0)
        })
        .add_systems(Update, take_screenshot);
    }
    app.run();
}

fn setup(mut commands: Commands) {
    // The map sits left of the inspector's panel.
    commands.spawn((
        Camera2d,
        Projection::Orthographic(OrthographicProjection {
            scale: 1.25,
            ..OrthographicProjection::default_2d()
        }),
        Transform::from_xyz(455.0, 106.0, 0.0),
    ));
    commands.spawn((
        Sprite::from_color(Color::srgb(0.22, 0.27, 0.23), ARENA * 2.0 + 40.0),
        Transform::from_xyz(0.0, 0.0, -1.0),
    ));
    for (name, pos) in PLACES {
        let color = match name {
            "A" | "B" => Color::srgb(0.9, 0.75, 0.2),
            "P1" | "P2" => Color::srgb(0.9, 0.5, 0.2),
            "lookout" => Color::srgb(0.3, 0.8, 0.9),
            "tunnel" => Color::srgb(0.55, 0.55, 0.6),
            _ => Color::srgb(0.4, 0.4, 0.4),
        };
        commands
            .spawn((
                Sprite::from_color(color.with_alpha(0.35), Vec2::splat(RADIUS * 2.0)),
                Transform::from_translation(pos.extend(0.0)),
            ))
            .with_children(|c| {
                c.spawn((
                    Text2d::new(name),
                    TextFont {
                        font_size: FontSize::Px(20.0),
                        ..Default::default()
                    },
                    Transform::from_xyz(0.0, RADIUS + 12.0, 1.0),
                ));
            });
    }
    commands.spawn((
        CarSprite,
        Sprite::from_color(Color::srgb(0.3, 0.6, 1.0), Vec2::new(26.0, 14.0)),
        Transform::from_xyz(0.0, 0.0, 2.0),
    ));
    let text = |size: f32| TextFont {
        font_size: FontSize::Px(size),
        ..Default::default()
    };
    commands.spawn((
        Hud,
        Text::new(""),
        text(15.0),
        Node {
            position_type: PositionType::Absolute,
            top: px(8),
            left: px(12),
            ..Default::default()
        },
    ));
    commands.spawn((
        Log,
        Text::new(""),
        text(14.0),
        TextColor(Color::srgb(0.75, 0.8, 0.75)),
        Node {
            position_type: PositionType::Absolute,
            top: px(8),
            left: px(370),
            ..Default::default()
        },
    ));
    commands.spawn((
        Text::new(
            "arrows / WASD drive - hold Shift: over the limit - 1 scenic / 2 express - R restart - F1 inspector",
        ),
        text(14.0),
        TextColor(Color::srgb(0.7, 0.7, 0.7)),
        Node {
            position_type: PositionType::Absolute,
            bottom: px(8),
            left: px(12),
            ..Default::default()
        },
    ));
}

#[allow(clippy::too_many_arguments, reason = "a Bevy system's parameters")]
fn keyboard(
    mut commands: Commands,
    keys: Res<ButtonInput<KeyCode>>,
    pilot: Option<Res<Autopilot>>,
    mut input: ResMut<DriverInput>,
    mut session: ResMut<SessionState>,
    mut car: ResMut<Car>,
    mut agents: Query<&mut BtAgent>,
) {
    // The choice counts until the route starts (select-one picks then).
    let route_started = route_taken(session.entity.and_then(|e| agents.get(e).ok())).is_some();
    if !route_started && keys.just_pressed(KeyCode::Digit1) {
        session.scenic = Some(true);
    }
    if !route_started && keys.just_pressed(KeyCode::Digit2) {
        session.scenic = Some(false);
    }
    if keys.just_pressed(KeyCode::KeyR) {
        // A new session, driven by hand.
        commands.remove_resource::<Autopilot>();
        // A new session: the tree restarts cleanly, the map resets.
        let entity = session.entity;
        *session = SessionState {
            entity,
            ..Default::default()
        };
        car.pos = PLACES[0].1;
        if let Some(mut agent) = entity.and_then(|e| agents.get_mut(e).ok()) {
            agent.restart();
        }
    }
    if pilot.is_some_and(|p| !p.done()) && !keys.just_pressed(KeyCode::KeyR) {
        return;
    }
    let mut dir = Vec2::ZERO;
    for (key, alt, d) in [
        (KeyCode::ArrowLeft, KeyCode::KeyA, Vec2::NEG_X),
        (KeyCode::ArrowRight, KeyCode::KeyD, Vec2::X),
        (KeyCode::ArrowUp, KeyCode::KeyW, Vec2::Y),
        (KeyCode::ArrowDown, KeyCode::KeyS, Vec2::NEG_Y),
    ] {
        if keys.pressed(key) || keys.pressed(alt) {
            dir += d;
        }
    }
    *input = DriverInput {
        dir,
        fast: keys.pressed(KeyCode::ShiftLeft) || keys.pressed(KeyCode::ShiftRight),
    };
}

/// Opens the inspector on the session once it exists.
fn show_inspector(
    session: Res<SessionState>,
    mut inspector: ResMut<InspectorState>,
    mut done: Local<bool>,
) {
    if !*done && let Some(entity) = session.entity {
        inspector.open = true;
        inspector.selected = Some(entity);
        *done = true;
    }
}

fn sync_car(car: Res<Car>, mut sprite: Query<&mut Transform, With<CarSprite>>) {
    for mut t in &mut sprite {
        t.translation = car.pos.extend(2.0);
        t.rotation = Quat::from_rotation_z(car.heading.to_angle());
    }
}

fn update_hud(
    session: Res<SessionState>,
    car: Res<Car>,
    agents: Query<&BtAgent>,
    mut hud: Query<&mut Text, (With<Hud>, Without<Log>)>,
    mut log: Query<&mut Text, (With<Log>, Without<Hud>)>,
) {
    let agent = session.entity.and_then(|e| agents.get(e).ok());
    let flags: std::collections::HashMap<String, String> = agent
        .map(flags_of)
        .unwrap_or_default()
        .into_iter()
        .collect();
    let status = match agent {
        Some(a) if a.program().is_some() => a.status().as_str(),
        _ => "loading",
    };
    let mut out = format!(
        "Session: {}   {:.1} s\npassengers {}/3   warnings {}\n",
        if status == "success" {
            "COMPLETE"
        } else {
            status
        },
        session.time,
        session.passengers,
        session.warnings
    );
    out.push_str(&format!(
        "speed {:.0} / limit {:.0}{}\nroute: {}\n",
        car.speed,
        SPEED_LIMIT,
        if car.speed > SPEED_LIMIT {
            "  SPEEDING"
        } else {
            ""
        },
        // The branch the tree took once the route started, else the choice.
        match (route_taken(agent), session.scenic) {
            (Some(true), _) => "scenic (taken)",
            (Some(false), _) => "express (taken)",
            (None, Some(true)) => "scenic",
            (None, Some(false)) => "express",
            (None, None) => "not chosen (express)",
        }
    ));
    // [x] complete, [~] was complete (lost it), [>] running, [ ] paused.
    let mark = |path: &str| -> &str {
        match flags.get(path) {
            Some(f) if f.contains('C') => "[x]",
            Some(f) if f.contains('W') => "[~]",
            Some(f) if !f.contains('P') => "[>]",
            _ => "[ ]",
        }
    };
    for (path, label) in OBJECTIVES {
        out.push_str(&format!("{} {label}\n", mark(path)));
    }
    out.push_str(&format!(
        "{} Drive to B",
        mark("session/objectives/drive_to_b")
    ));
    for mut text in &mut hud {
        if text.0 != out {
            text.0.clone_from(&out);
        }
    }
    let recent: Vec<&str> = session
        .log
        .iter()
        .rev()
        .take(5)
        .rev()
        .map(String::as_str)
        .collect();
    let recent = recent.join("\n");
    for mut text in &mut log {
        if text.0 != recent {
            text.0 = recent.clone();
        }
    }
}

fn take_screenshot(
    mut commands: Commands,
    mut plan: ResMut<ScreenshotPlan>,
    pilot: Res<Autopilot>,
    mut exit: MessageWriter<AppExit>,
) {
    // After the deliveries and the route choice (step 5 of the drive), or
    // at its end if it is shorter.
    if pilot.current < 5 && !pilot.done() {
        return;
    }
    plan.frames_after += 1;
    match plan.frames_after {
        4 => {
            commands
                .spawn(Screenshot::primary_window())
                .observe(save_to_disk(plan.path.clone()));
        }
        80 => {
            exit.write(AppExit::Success);
        }
        _ => {}
    }
}

/// Which branch of the route the tree took (`Some(true)`: scenic), once
/// the select-one has picked.
fn route_taken(agent: Option<&BtAgent>) -> Option<bool> {
    let agent = agent?;
    let program = agent.program()?;
    let picked = |path: &str| {
        program.node(path).is_some_and(|i| {
            let f = agent.state().node(i).flags();
            !f.contains(RuleFlags::PAUSED) || f.contains(RuleFlags::WAS_COMPLETE)
        })
    };
    if picked("session/objectives/route/scenic") {
        Some(true)
    } else if picked("session/objectives/route/express_tunnel") {
        Some(false)
    } else {
        None
    }
}
