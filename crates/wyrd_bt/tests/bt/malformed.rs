//! A corpus of malformed trees: each gives its own clear error, with file,
//! line and column, and never a panic.

use std::path::Path;

use wyrd_bt::{BtError, BtProblem, Vocabulary, compile, load_tree_files};

fn load(name: &str) -> Result<wyrd_bt::Program, BtError> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed");
    let mut vocab = Vocabulary::default();
    vocab.add_action("Shoot");
    let files = load_tree_files(name, &mut |p| {
        std::fs::read(dir.join(p)).map_err(|e| e.to_string())
    })?;
    compile(name, &files, &vocab)
}

fn expect(name: &str, line: usize, check: impl Fn(&BtProblem) -> bool, words: &str) {
    let err = load(name).expect_err(name);
    assert!(check(&err.problem), "{name}: unexpected problem: {err}");
    assert_eq!(err.line, line, "{name}: {err}");
    assert!(err.column >= 1);
    let text = err.to_string();
    assert!(text.starts_with(&format!("{}:{line}:", err.file)), "{text}");
    assert!(text.contains(words), "{name}: {text:?} lacks {words:?}");
}

#[test]
fn each_malformed_tree_has_its_own_error() {
    expect(
        "unknown_kind.bt.ron",
        3,
        |p| matches!(p, BtProblem::UnknownNodeKind { found, .. } if found == "Dance"),
        "unknown node kind \"Dance\"",
    );
    // A BehaviorTree.CPP user's names: the error says which kind it is
    // here, from the node table's BT.CPP column.
    expect(
        "bt_cpp_name.bt.ron",
        3,
        |p| matches!(p, BtProblem::UnknownNodeKind { found, .. } if found == "Inverter"),
        "BehaviorTree.CPP's Inverter is `Invert` here",
    );
    expect(
        "children_on_leaf.bt.ron",
        3,
        |p| matches!(p, BtProblem::ChildrenOnLeaf { .. }),
        "Action is a leaf and cannot have children",
    );
    expect(
        "unknown_action.bt.ron",
        4,
        |p| matches!(p, BtProblem::UnknownAction { name, .. } if name == "Teleport"),
        "register_bt_action",
    );
    expect(
        "unknown_predicate.bt.ron",
        3,
        |p| matches!(p, BtProblem::UnknownPredicate(_)),
        "can_fly",
    );
    expect(
        "unknown_key.bt.ron",
        3,
        |p| matches!(p, BtProblem::UnknownKey(k) if k == "ammunition"),
        "ammunition",
    );
    // A BT.CPP user's robot (issue 24): a behavior's output parameter
    // written as a plain key was an unknown key, placed at the parameter's
    // declaration (where the word first appears), not at the node.
    expect(
        "parameter_as_key.bt.ron",
        6,
        |p| matches!(p, BtProblem::ParameterAsKey(k) if k == "out"),
        "write \"{out}\"",
    );
    expect(
        "key_type.bt.ron",
        3,
        |p| matches!(p, BtProblem::KeyType { .. }),
        "is an int",
    );
    expect(
        "unknown_tag.bt.ron",
        3,
        |p| matches!(p, BtProblem::UnknownTag(t) if t == "pilot"),
        "pilot",
    );
    expect(
        "missing_behavior.bt.ron",
        3,
        |p| matches!(p, BtProblem::UnknownBehavior(b) if b == "flee"),
        "unknown behavior \"flee\"",
    );
    expect(
        "cycle.bt.ron",
        4,
        |p| matches!(p, BtProblem::Cycle(c) if c == "a -> b -> a"),
        "cyclic reference: a -> b -> a",
    );
    expect(
        "missing_file.bt.ron",
        3,
        |p| matches!(p, BtProblem::Io { file, .. } if file == "nowhere.bt.ron"),
        "nowhere.bt.ron",
    );
    expect(
        "duplicate_path.bt.ron",
        4,
        |p| matches!(p, BtProblem::DuplicatePath(d) if d == "root/shoot"),
        "duplicate path \"root/shoot\"",
    );
    expect(
        "duplicate_behavior.bt.ron",
        4,
        |p| matches!(p, BtProblem::DuplicateBehavior(_)),
        "declared twice",
    );
    expect(
        "unnamed_behavior.bt.ron",
        3,
        |p| matches!(p, BtProblem::UnnamedBehavior),
        "needs a name",
    );
    expect(
        "empty_composite.bt.ron",
        2,
        |p| matches!(p, BtProblem::Arity { found: 0, .. }),
        "needs at least 1 child, it has 0",
    );
    expect(
        "bad_weights.bt.ron",
        2,
        |p| {
            matches!(
                p,
                BtProblem::BadWeights {
                    weights: 1,
                    children: 2
                }
            )
        },
        "1 weights for 2 children",
    );
    expect(
        "bad_duration.bt.ron",
        2,
        |p| matches!(p, BtProblem::BadDuration(_)),
        "-1",
    );
    expect(
        "redirect_without_position.bt.ron",
        4,
        |p| matches!(p, BtProblem::NoNativePosition(_)),
        "not placed in the tree",
    );
    expect(
        "syntax.bt.ron",
        2,
        |p| matches!(p, BtProblem::Syntax(_)),
        "",
    );
    expect(
        "bad_policy.bt.ron",
        2,
        |p| {
            matches!(
                p,
                BtProblem::BadPolicy {
                    policy: 3,
                    children: 1
                }
            )
        },
        "Count(3) needs 3 of its 1 children",
    );
    // Issue 12, 8.: `Count(0)` is not "more than the children".
    expect(
        "policy_zero.bt.ron",
        2,
        |p| matches!(p, BtProblem::BadPolicy { policy: 0, .. }),
        "Count(0) needs 0 of its 1 children: use Count(1..=1), One or All",
    );
    // Issue 12, 8.: `Repeat(count: 0)` was silently "forever".
    expect(
        "repeat_zero.bt.ron",
        2,
        |p| matches!(p, BtProblem::ZeroCount { kind: "Repeat", .. }),
        "Repeat(count: 0) would never run its child",
    );
    // Issue 12, 3.(c): a behavior placed twice made a redirect silently jump
    // to the first placement.
    expect(
        "redirect_placed_twice.bt.ron",
        4,
        |p| matches!(p, BtProblem::PlacedTwice { count: 2, .. }),
        "placed 2 times (root/first, root/second)",
    );
    // Issue 12, 3.(b): a redirect below the impulse's own branch ran
    // nothing at all; one into the impulse's own behavior would run itself.
    expect(
        "redirect_into_itself.bt.ron",
        5,
        |p| matches!(p, BtProblem::RedirectIntoItself { .. }),
        "contains the impulse",
    );
    // Found by an independent review: a decorator given `children` was "a
    // leaf"; a wrong type was reported at the key's declaration.
    expect(
        "decorator_children.bt.ron",
        3,
        |p| matches!(p, BtProblem::WrongChildField { .. }),
        "`children` is not a field of this node: it takes `child: Node(..)`",
    );
    expect(
        "key_type_at_use.bt.ron",
        5,
        |p| matches!(p, BtProblem::KeyType { .. }),
        "blackboard key \"hp\" is an int, compared with a bool",
    );
    expect(
        "threshold_zero.bt.ron",
        3,
        |p| {
            matches!(
                p,
                BtProblem::ZeroCount {
                    kind: "Threshold",
                    ..
                }
            )
        },
        "Threshold(count: 0) would succeed without polling its condition once",
    );
    expect(
        "switch_arity.bt.ron",
        3,
        |p| {
            matches!(
                p,
                BtProblem::SwitchArity {
                    cases: 2,
                    children: 1
                }
            )
        },
        "one child per case, then the default",
    );
    expect(
        "unknown_custom.bt.ron",
        2,
        |p| matches!(p, BtProblem::UnknownCustom(_)),
        "Majority",
    );
}

#[test]
fn every_file_in_the_corpus_is_checked() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(load(&name).is_err(), "{name} loaded");
        n += 1;
    }
    assert_eq!(n, 30);
}

#[test]
fn random_bytes_never_panic() {
    let mut state = 0x1234_5678u64;
    for len in 0..300 {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                b"(){}[],:\"SequenceActionroot 01a"[(state % 31) as usize]
            })
            .collect();
        let _ = wyrd_bt::parse_tree("fuzz.bt.ron", &bytes);
    }
}
