//! The walls between learnsync's layers (docs/architecture.md), read from
//! the imports: core modules use only core modules, edges use core and
//! other edges, workflows use anything but the command line (each only
//! those on floors below its own), and no two modules — top-level ones, or
//! files and folders at any depth — import each other round a loop. A new
//! module must be given a layer here. The text is read, not compiled:
//! `crate::x` and `super::x` paths (also inside `use …::{…}` groups) outside
//! `#[cfg(test)]` modules and `tests.rs` files count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    Core,
    Edge,
    Workflow,
    Cli,
}

/// Every top-level module of `src/lib.rs` and its layer.
const LAYERS: &[(&str, Layer)] = &[
    // Core: pure rules and formats, no I/O.
    ("paths", Layer::Core),
    ("timestamp", Layer::Core),
    ("yaml", Layer::Core),
    ("names", Layer::Core),
    ("page_name", Layer::Core),
    ("problem", Layer::Core),
    ("redact", Layer::Core),
    ("learning", Layer::Core),
    ("event", Layer::Core),
    ("review_rules", Layer::Core),
    ("policy", Layer::Core),
    ("trust", Layer::Core),
    ("merge", Layer::Core),
    ("schedule", Layer::Core),
    ("retry", Layer::Core),
    ("fault", Layer::Core),
    ("shell", Layer::Core),
    ("risk", Layer::Core),
    ("text", Layer::Core),
    ("impact", Layer::Core),
    // Edges: one kind of I/O each.
    ("repo", Layer::Edge),
    ("store", Layer::Edge),
    ("gitea", Layer::Edge),
    ("config", Layer::Edge),
    ("watch", Layer::Edge),
    // Workflows: what a command does, over the edges.
    ("view", Layer::Workflow),
    ("hub", Layer::Workflow),
    ("by_hand", Layer::Workflow),
    ("capture", Layer::Workflow),
    ("sync", Layer::Workflow),
    ("indexes", Layer::Workflow),
    ("render", Layer::Workflow),
    ("publish", Layer::Workflow),
    ("health", Layer::Workflow),
    ("signing", Layer::Workflow),
    ("init", Layer::Workflow),
    ("hook_install", Layer::Workflow),
    ("search", Layer::Workflow),
    ("review_pass", Layer::Workflow),
    ("daemon", Layer::Workflow),
    ("export", Layer::Workflow),
    // The command line: parse, call, print.
    ("cli", Layer::Cli),
];

/// The workflows' floors, from the bottom: a workflow imports only
/// workflows on floors below its own, never one beside it (src/lib.rs).
const WORKFLOW_FLOORS: &[&[&str]] = &[
    &["hub", "signing", "by_hand", "hook_install", "render"],
    &["view"],
    &["search", "publish", "export"],
    &["capture"],
    &["sync"],
    &["indexes"],
    &["init"],
    &["review_pass"],
    &["daemon"],
    &["health"],
];

fn floor(module: &str) -> Option<usize> {
    WORKFLOW_FLOORS.iter().position(|f| f.contains(&module))
}

fn layer(module: &str) -> Option<Layer> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, l)| *l)
}

/// The text of a file without its `#[cfg(test)] mod … { … }` blocks.
fn without_tests(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        // Skip to the end of the item that follows: a `mod x;` or a braced block.
        let Some(open) = after.find(['{', ';']) else {
            return out;
        };
        if after.as_bytes()[open] == b';' {
            rest = &after[open + 1..];
            continue;
        }
        let mut depth = 0usize;
        let mut end = after.len();
        for (i, c) in after[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Top-level modules a text names through `crate::`, in code (comments,
/// doc comments included, may name any module).
fn imports(text: &str) -> BTreeSet<String> {
    let prefix = "crate::";
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let text = code.as_str();
    let mut out = BTreeSet::new();
    let ident = |s: &str| {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<String>()
    };
    for (at, _) in text.match_indices(prefix) {
        let rest = &text[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            for item in inner.split(',') {
                let name = ident(item.trim());
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src").flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// module → the modules it imports, over every file of `src/`.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).expect("under src");
        let first = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .unwrap_or_default();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "lib" || module == "main" || rel.ends_with("tests.rs") {
            continue;
        }
        let text = without_tests(&std::fs::read_to_string(&file).expect("read"));
        let entry = graph.entry(module.clone()).or_default();
        for target in imports(&text) {
            if target != module {
                entry.insert(target);
            }
        }
    }
    graph
}

#[test]
fn every_module_has_a_layer_and_imports_only_its_own_or_lower_ones() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("lib.rs");
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';'))
        .collect();
    for module in &declared {
        assert!(
            layer(module).is_some(),
            "src/lib.rs declares `{module}`, which has no layer in tests/layers.rs (and docs/architecture.md)"
        );
    }
    let mut wrong = Vec::new();
    for (module, targets) in graph() {
        let Some(from) = layer(&module) else { continue };
        for target in targets {
            let Some(to) = layer(&target) else { continue };
            let allowed = match from {
                Layer::Core => to == Layer::Core,
                Layer::Edge => to <= Layer::Edge,
                Layer::Workflow => to <= Layer::Workflow,
                Layer::Cli => true,
            };
            if !allowed {
                wrong.push(format!("{module} ({from:?}) imports {target} ({to:?})"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn each_workflow_imports_only_workflows_on_floors_below_its_own() {
    for (module, _) in LAYERS.iter().filter(|(_, l)| *l == Layer::Workflow) {
        assert!(
            floor(module).is_some(),
            "the workflow `{module}` has no floor in WORKFLOW_FLOORS (and src/lib.rs)"
        );
    }
    let mut wrong = Vec::new();
    for (module, targets) in graph() {
        let Some(from) = floor(&module) else { continue };
        for target in targets.iter().filter(|t| **t != module) {
            if let Some(to) = floor(target)
                && to >= from
            {
                wrong.push(format!(
                    "{module} (floor {from}) imports {target} (floor {to})"
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the workflows' order:\n{}",
        wrong.join("\n")
    );
}

/// A loop in `graph`, if there is one, as the path that closes it.
fn find_loop(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search for a back edge.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| n == node) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, stack, done) {
                return Some(cycle);
            }
        }
        stack.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_two_modules_import_each_other_round_a_loop() {
    if let Some(cycle) = find_loop(&graph()) {
        panic!("an import loop between modules: {}", cycle.join(" -> "));
    }
}

/// The paths a text names after `crate::` or `super::` (as many
/// `super::` as it climbs), in code, each as its segments from the crate
/// root; a `{…}` group gives one path per item (its first segment).
/// `module` is the module the text is, as segments.
fn paths_named(text: &str, module: &[String]) -> Vec<Vec<String>> {
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    // The segments of a path from `rest` on, up to a group or a non-path,
    // and what follows them (`::{…}` for a group).
    fn segments(mut rest: &str) -> (Vec<String>, &str) {
        let ident = |s: &str| {
            s.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<String>()
        };
        let mut out = Vec::new();
        loop {
            let name = ident(rest);
            if name.is_empty() {
                break;
            }
            rest = &rest[name.len()..];
            out.push(name);
            match rest.strip_prefix("::") {
                Some(r) if !r.starts_with('{') => rest = r,
                _ => break,
            }
        }
        (out, rest)
    }
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    for (at, _) in code
        .match_indices("crate::")
        .chain(code.match_indices("super::"))
    {
        // `super::super::` is read once, from its first `super`.
        let joined = at >= 2 && &code[at - 2..at] == "::";
        if joined || at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let mut rest = &code[at..];
        let mut base: Vec<String> = if rest.starts_with("crate::") {
            rest = &rest["crate::".len()..];
            Vec::new()
        } else {
            // A `mod.rs` is its folder's module: its `super` is the folder's parent.
            let mut base = module.to_vec();
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            base
        };
        let (head, after) = segments(rest);
        base.extend(head);
        match after
            .strip_prefix("::{")
            .or_else(|| after.strip_prefix('{'))
        {
            Some(group) => {
                let inner = &group[..group.find('}').unwrap_or(group.len())];
                for item in inner.split(',') {
                    let mut path = base.clone();
                    path.extend(segments(item.trim()).0);
                    found.push(path);
                }
            }
            None => found.push(base),
        }
    }
    found
}

/// No two modules, at any depth, import each other round a loop: a file
/// that needs its sibling's sibling back, or a folder that needs another
/// folder that needs it, is one module cut in the wrong place. A module
/// using its own parent's or child's items does not count (the parent
/// declares the child).
#[test]
fn no_two_files_import_each_other_round_a_loop() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    let module_of = |file: &Path| -> Vec<String> {
        let rel = file
            .strip_prefix(&src)
            .expect("under src")
            .with_extension("");
        let mut parts: Vec<String> = rel
            .components()
            .filter_map(|c| c.as_os_str().to_str().map(str::to_string))
            .collect();
        if parts.last().is_some_and(|p| p == "mod") {
            parts.pop();
        }
        parts
    };
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if stem == "lib" || stem == "main" || stem == "tests" || stem.starts_with("tests_") {
            continue;
        }
        let module = module_of(file);
        let text = without_tests(&std::fs::read_to_string(file).expect("read"));
        let entry = graph.entry(module.join("::")).or_default();
        for mut path in paths_named(&text, &module) {
            // The longest prefix that is a module of ours.
            while !path.is_empty() && !modules.contains(&path) {
                path.pop();
            }
            let related = path.starts_with(&module) || module.starts_with(&path);
            if !path.is_empty() && !related {
                entry.insert(path.join("::"));
            }
        }
    }
    if let Some(cycle) = find_loop(&graph) {
        panic!("an import loop between files: {}", cycle.join(" -> "));
    }
}

#[test]
fn the_reader_sees_grouped_imports_and_skips_tests() {
    let text = "use crate::{learning::Learning, paths};\n/// see `crate::sync`\nfn f() { crate::redact::redact(x); }\n#[cfg(test)]\nmod tests {\n    use crate::sync::run;\n    fn g() { if x { y } }\n}\nuse crate::event;\n";
    let found = imports(&without_tests(text));
    let want: BTreeSet<String> = ["learning", "paths", "redact", "event"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(found, want);
}

#[test]
fn the_path_reader_climbs_super_and_splits_groups() {
    let module = ["redact".to_string(), "context".to_string()];
    let text = "use super::assign::{self, dash_random};\nuse super::super::shell::lex;\nfn f() { crate::paths::gate(x); } // crate::nope\n";
    let found: BTreeSet<String> = paths_named(text, &module)
        .into_iter()
        .map(|p| p.join("::"))
        .collect();
    let want: BTreeSet<String> = [
        "redact::assign::self",
        "redact::assign::dash_random",
        "shell::lex",
        "paths::gate",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(found, want);
}
