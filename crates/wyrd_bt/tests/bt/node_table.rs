//! The crate docs' node table (`NODES.md`) is generated from `Kind::info`:
//! this test fails, printing the new table, when they differ.

#[test]
fn nodes_md_matches_the_kind_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/NODES.md");
    let want = wyrd_bt::node_table();
    let have = std::fs::read_to_string(path).unwrap_or_default();
    if have != want {
        if std::env::var_os("WYRD_BLESS").is_some() {
            std::fs::write(path, &want).unwrap();
            return;
        }
        panic!(
            "crates/wyrd_bt/NODES.md is out of date (run with WYRD_BLESS=1 to rewrite it); it should be:\n{want}"
        );
    }
}

#[test]
fn every_kind_has_a_unique_name_and_a_rule() {
    let mut names = std::collections::HashSet::new();
    for i in wyrd_bt::kinds() {
        assert!(names.insert(i.name), "{} twice", i.name);
        assert!(!i.rule.is_empty() && !i.bt_cpp.is_empty() && !i.unreal.is_empty());
        assert!(i.min_children <= i.max_children, "{}", i.name);
    }
}
