//! Issue 23: a checker a game's CI can trust. A small guard game (typed
//! actions, a subtree with parameters, a world-state counter) writes its
//! vocabulary; six mistakes are put into its tree, each after an identical,
//! correct occurrence of the same text. `wyrd check --vocabulary` reports
//! each at its line and column with the caret, and the game's loader (the
//! same parse and compile with the app's registry) at the same place.

use crate::support;

use std::path::Path;

use bevy::prelude::*;
use wyrd::bt::{BtRegistry, compile, load_tree_files};
use wyrd::prelude::*;

bt_action! {
    /// Run after someone.
    pub struct Chase {
        /// Whom.
        pub target: Entity,
        /// How fast.
        pub speed: f32 = 3.0,
    }
    /// Walk somewhere.
    pub struct MoveTo {
        /// Where.
        pub goal: Vec2,
        /// How fast.
        pub speed: f32 = 2.0,
    }
}

const FLAGS: &str = r#"(
    counters: [
        (id: "0d2d6c1f2b8e4a0f9c3b5e7a1d4f6b20", name: "ALARMS_RAISED", default: 0),
    ],
)"#;

const TREE: &str = r#"(
    blackboard: {"intruder": Entity, "alarm": false, "post": (0.0, 0.0), "door": (4.0, 1.0)},
    behaviors: [
        Sequence(name: "go_to", parameters: {"goal": Vec2, "speed": 2.0}, children: [
            Action(action: "MoveTo", params: {"goal": "{goal}", "speed": "{speed}"}),
        ]),
    ],
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "alarmed", children: [
            Condition(check: World("ALARMS_RAISED", Ge, 3)),
            Condition(check: Is("alarm")),
            Action(action: "Chase", params: {"target": "{intruder}", "speed": 4.0}),
        ]),
        GuardSequence(name: "chase", children: [
            Condition(check: World("ALARMS_RAISED", Ge, 1)),
            Condition(check: Is("alarm")),
            Action(action: "Chase", params: {"target": "{intruder}", "speed": 4.0}),
        ]),
        Use(name: "patrol", behavior: "go_to", with: {"goal": "{post}"}),
        Use(name: "check_door", behavior: "go_to", with: {"goal": "{post}"}),
    ]),
)
"#;

/// The game: its registrations, as `main` would add them.
fn game() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default()))
        .add_plugins(WyrdPlugins.set(WorldStatePlugin::with_files(["guard/world.flags.ron"])))
        .add_bt_action::<Chase>()
        .add_bt_action::<MoveTo>();
    app
}

/// Replaces the second `from` of the tree (the first stays, correct);
/// returns the text and the 1-based line and column of the change.
fn second(from: &str, to: &str) -> (String, usize, usize) {
    let first = TREE.find(from).unwrap();
    let at = first + from.len() + TREE[first + from.len()..].find(from).unwrap();
    let text = format!("{}{to}{}", &TREE[..at], &TREE[at + from.len()..]);
    let line = TREE[..at].matches('\n').count() + 1;
    let column = at - TREE[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
    (text, line, column)
}

struct Mistake {
    what: &'static str,
    text: String,
    /// Where the error must point.
    line: usize,
    column: usize,
    /// Words the message must have.
    words: String,
    /// Whether the game's loader reports it (world names are the world
    /// state's, checked against its flags files).
    loader: bool,
}

fn mistakes() -> Vec<Mistake> {
    let mut out = Vec::new();
    let (text, line, column) = second(r#""Chase""#, r#""Chsae""#);
    out.push(Mistake {
        what: "action name typo",
        text,
        line,
        column: column + 1,
        words: "unknown action \"Chsae\"".into(),
        loader: true,
    });
    let (text, line, column) = second(r#""speed": 4.0"#, r#""speed": "fast""#);
    out.push(Mistake {
        what: "a parameter of the wrong type",
        text,
        line,
        column: column + 1,
        words: "speed".into(),
        loader: true,
    });
    let (text, line, column) = second(r#"Is("alarm")"#, r#"Is("alarn")"#);
    out.push(Mistake {
        what: "unknown blackboard key",
        text,
        line,
        column: column + "Is(\"".len(),
        words: "alarn".into(),
        loader: true,
    });
    let (text, line, column) = second(r#"with: {"goal": "{post}"}"#, "with: {}");
    out.push(Mistake {
        what: "a missing subtree binding in the second Use",
        text,
        line,
        column,
        words: "\"goal\"".into(),
        loader: true,
    });
    // The `]` closing the second guard's children.
    let close = "            Action(action: \"Chase\", params: {\"target\": \"{intruder}\", \"speed\": 4.0}),\n        ]),\n        Use(";
    let at = TREE.find(close).unwrap() + close.find("]),").unwrap();
    let text = format!("{}{}", &TREE[..at], &TREE[at + 1..]);
    let (open_line, open_col) = {
        let open = TREE
            .find("GuardSequence(name: \"chase\", children: [")
            .unwrap()
            + "GuardSequence(name: \"chase\", children: ".len();
        let line = TREE[..open].matches('\n').count() + 1;
        (line, open - TREE[..open].rfind('\n').unwrap())
    };
    let line = text[..at].matches('\n').count() + 1;
    let column = at - text[..at].rfind('\n').unwrap();
    out.push(Mistake {
        what: "a missing ]",
        text,
        line,
        column,
        words: format!(
            "expected \"]\" to close the list opened at {open_line}:{open_col}, found \")\""
        ),
        loader: true,
    });
    let (text, line, column) = second(r#""ALARMS_RAISED""#, r#""ALARMS_RAISD""#);
    out.push(Mistake {
        what: "a world value typo",
        text,
        line,
        column: column + 1,
        words: "no flags file declares the world value \"ALARMS_RAISD\"; did you mean \"ALARMS_RAISED\"?".into(),
        loader: false,
    });
    out
}

#[test]
fn each_mistake_is_reported_at_its_place_by_the_checker_and_the_loader() {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path();
    std::fs::create_dir_all(assets.join("guard")).unwrap();
    std::fs::write(assets.join("guard/world.flags.ron"), FLAGS).unwrap();
    let mut app = game();
    let vocabulary = assets.join("guard.vocabulary.json");
    app.write_bt_vocabulary(&vocabulary).unwrap();
    let registry = app.world().resource::<BtRegistry>().snapshot();
    let tree = assets.join("guard/guard.bt.ron");
    // The correct tree passes both.
    std::fs::write(&tree, TREE).unwrap();
    let ok = check(&tree, &vocabulary, assets);
    assert!(ok.status.success(), "{}", text(&ok));
    assert!(!text(&ok).contains("not checked"), "{}", text(&ok));
    for m in mistakes() {
        std::fs::write(&tree, &m.text).unwrap();
        let out = check(&tree, &vocabulary, assets);
        let said = text(&out);
        assert_eq!(out.status.code(), Some(1), "{}: {said}", m.what);
        let place = format!("{}:{}:{}: ", tree.display(), m.line, m.column);
        assert!(
            said.contains(&place),
            "{}: expected {place}\n{said}",
            m.what
        );
        assert!(
            said.contains(&m.words),
            "{}: expected {:?}\n{said}",
            m.what,
            m.words
        );
        let src = m.text.lines().nth(m.line - 1).unwrap();
        let caret = format!(
            "{} | {}^",
            " ".repeat(m.line.to_string().len()),
            " ".repeat(m.column - 1)
        );
        assert!(
            said.contains(src) && said.contains(&caret),
            "{}: no caret\n{said}",
            m.what
        );
        // The game's loader: the same place.
        let file = tree.to_string_lossy().into_owned();
        let loaded = load_tree_files(&file, &mut |p: &str| {
            std::fs::read(p).map_err(|e| e.to_string())
        })
        .and_then(|files| compile(&file, &files, &registry));
        match loaded {
            Err(e) if m.loader => {
                assert_eq!(
                    (e.line, e.column),
                    (m.line, m.column),
                    "{}: loader said {e}",
                    m.what
                );
            }
            Ok(_) if !m.loader => {}
            other => panic!("{}: the loader said {other:?}", m.what),
        }
    }
}

/// Without a vocabulary the checker never says a bare `ok`: it names what
/// it could not check.
#[test]
fn without_a_vocabulary_the_checker_says_what_it_did_not_check() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("guard.bt.ron");
    std::fs::write(&tree, TREE).unwrap();
    let out = support::wyrd().arg("check").arg(&tree).output().unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("not checked: action names and parameters, predicates and custom nodes (no vocabulary); world values (no flags file)"),
        "{said}"
    );
    // A folder with nothing to check, a path that is not there: usage (2).
    let empty = tempfile::tempdir().unwrap();
    for path in [empty.path(), Path::new("/no/such/tree.bt.ron")] {
        let out = support::wyrd().arg("check").arg(path).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    }
}

/// The bundled games' vocabularies are what the games register (written by
/// their `--vocabulary` flag), and every bundled tree, flags file and
/// script passes `wyrd check assets/` with them (found through each game's
/// `wyrd.toml`): a tree the game would reject fails CI.
#[test]
fn the_bundled_assets_pass_the_check_with_the_games_vocabularies() {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    for game in ["drone_quest", "squad_ai", "session_rules", "first_ai"] {
        let dir = tempfile::tempdir().unwrap();
        let written = dir.path().join("v.json");
        let out = support::headless(game)
            .arg("--vocabulary")
            .arg(&written)
            .output()
            .unwrap();
        assert!(out.status.success(), "{game}: {}", text(&out));
        let committed = assets.join(game).join(format!("{game}.vocabulary.json"));
        assert_eq!(
            std::fs::read_to_string(&written).unwrap(),
            std::fs::read_to_string(&committed).unwrap_or_default(),
            "{game}'s vocabulary changed: run `cargo run --example {game} -- --vocabulary {}` and commit it",
            committed.display()
        );
    }
    let out = support::wyrd().arg("check").arg(&assets).output().unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    for game in ["drone_quest", "squad_ai", "session_rules", "first_ai"] {
        assert!(said.contains(&format!("{game}/wyrd.toml")), "{said}");
    }
    for line in said
        .lines()
        .filter(|l| l.contains(".bt.ron: ok") && !l.contains("/bench/"))
    {
        assert!(!line.contains("no vocabulary"), "{line}");
    }
}

fn check(tree: &Path, vocabulary: &Path, assets: &Path) -> std::process::Output {
    support::wyrd()
        .arg("check")
        .arg("--vocabulary")
        .arg(vocabulary)
        .arg("--assets")
        .arg(assets)
        .arg(tree)
        .output()
        .unwrap()
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
