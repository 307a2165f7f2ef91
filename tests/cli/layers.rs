//! The library's modules form layers that only point down, and its files import no cycle.
//!
//! Every top-level module of the library sits in a layer of [`LAYERS`]; a file may use modules
//! of its own layer or below, never above. Separately, the files' imports (`use`, and paths in
//! code such as `crate::grid::Grid::new()`) must form no cycle, where a module's use of its
//! own direct parts (`mod.rs` naming or re-exporting a child) is its structure and not an
//! edge: a cycle is two files of which neither is the other's parent, or longer. `src/lib.rs` only declares and
//! re-exports, and the binary (`src/main.rs`, `src/cli/`) is the top layer, so neither is
//! checked. Test code (`tests.rs`, `prop_tests.rs`, anything under `#[cfg(test)]`) obeys the
//! layers too, but is left out of the cycle check: a test may reach back into what it tests.
//!
//! It reads the sources with a small lexer rather than a parser crate, so that it needs only
//! std: comments, strings, `use` trees and `mod` items are all the module graph needs. Paths
//! that a macro builds out of tokens are not seen.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};

/// (layer, name, its top-level modules), lowest first. A new top-level module goes in here.
#[rustfmt::skip]
const LAYERS: &[(u32, &str, &[&str])] = &[
    (0, "base", &["grid", "rng", "machine", "cpus", "compress"]),
    (1, "corpus", &["corpus", "permute", "canonical", "dedupe"]),
    (2, "strategies", &["clock", "valgrind", "strategy", "foreign", "generate"]),
    (3, "results", &["results", "summary"]),
    (4, "running", &["engine", "runner", "classify", "interrupt", "preemption", "per_worker"]),
    (5, "analysis", &["noise", "compare", "merge", "resume", "report", "history"]),
    (6, "rendering", &["render"]),
    (7, "front", &["bench"]),
];

fn layer_of(top: &str) -> Option<(u32, &'static str)> {
    LAYERS
        .iter()
        .find(|l| l.2.contains(&top))
        .map(|&(n, name, _)| (n, name))
}

#[test]
fn library_modules_are_layered_without_cycles() {
    // Cargo sets CARGO_MANIFEST_DIR; a bare `rustc --test` build is run from the crate root.
    let root = option_env!("CARGO_MANIFEST_DIR")
        .map_or_else(|| std::env::current_dir().unwrap(), PathBuf::from);
    assert!(
        root.join("src/lib.rs").is_file(),
        "no src/lib.rs in {}",
        root.display()
    );
    let (problems, notes) = check(&root);
    for note in notes {
        eprintln!("note: {note}");
    }
    assert!(
        problems.is_empty(),
        "a library module may only use modules of its own layer or below (LAYERS, at the top \
         of tests/cli/layers.rs), and no library files may import each other in a cycle; {} \
         problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

// ---- lexer ----------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Ident,
    Str,
    Punct,
}

#[derive(Debug)]
struct Token {
    kind: Kind,
    text: String, // a string literal's text is its body, without quotes
    line: usize,
}

/// Identifiers, string literals and punctuation (`::` is one token). Comments, numbers, chars
/// and lifetimes are dropped, so nothing inside them can pass for a path or a brace.
fn lex(src: &str) -> Vec<Token> {
    let c: Vec<char> = src.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let is_ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let (mut out, mut i, mut line) = (Vec::new(), 0, 1);
    while i < c.len() {
        let start = i;
        let mut body = None; // the part of a string literal between its quotes
        let kind = match (c[i], at(i + 1)) {
            ('/', '/') => {
                i = (i..c.len()).find(|&j| c[j] == '\n').unwrap_or(c.len());
                None
            }
            ('/', '*') => {
                let (mut depth, mut j) = (0, i);
                loop {
                    match (at(j), at(j + 1)) {
                        ('/', '*') => (depth, j) = (depth + 1, j + 2),
                        ('*', '/') => (depth, j) = (depth - 1, j + 2),
                        ('\0', _) => break,
                        _ => j += 1,
                    }
                    if depth == 0 {
                        break; // block comments nest
                    }
                }
                i = j;
                None
            }
            ('"', _) => {
                let mut j = i + 1;
                while j < c.len() && c[j] != '"' {
                    j += if c[j] == '\\' { 2 } else { 1 };
                }
                body = Some((i + 1, j));
                i = j + 1;
                Some(Kind::Str)
            }
            // '\n' and 'x' are chars; 'a with no quote after one char is a lifetime.
            ('\'', '\\') => {
                i = (i + 3..c.len())
                    .find(|&j| c[j] == '\'')
                    .map_or(c.len(), |j| j + 1);
                None
            }
            ('\'', _) => {
                i += if at(i + 2) == '\'' { 3 } else { 1 };
                None
            }
            (ch, _) if is_ident(ch) => {
                while is_ident(at(i)) {
                    i += 1;
                }
                let hashes = (i..c.len()).take_while(|&j| c[j] == '#').count();
                let word: String = c[start..i].iter().collect();
                if matches!(word.as_str(), "r" | "br" | "cr") && at(i + hashes) == '"' {
                    // A raw string ends at a quote followed by as many #s as it opened with.
                    let from = i + hashes + 1;
                    let closes = |j: usize| c[j] == '"' && (1..=hashes).all(|k| at(j + k) == '#');
                    let to = (from..c.len()).find(|&j| closes(j)).unwrap_or(c.len());
                    body = Some((from, to));
                    i = to + 1 + hashes;
                    Some(Kind::Str)
                } else if matches!(word.as_str(), "b" | "c") && matches!(at(i), '"' | '\'') {
                    None // b"..", c"..", b'x': the literal itself is lexed next
                } else if word == "r" && hashes == 1 {
                    i += 1;
                    None // r#ident: the identifier is lexed next
                } else if word.starts_with(|ch: char| ch.is_ascii_digit()) {
                    None // a number
                } else {
                    Some(Kind::Ident)
                }
            }
            (':', ':') => {
                i += 2;
                Some(Kind::Punct)
            }
            (ch, _) => {
                i += 1;
                (!ch.is_whitespace()).then_some(Kind::Punct)
            }
        };
        if let Some(kind) = kind {
            let (from, to) = body.unwrap_or((start, i));
            let text = c[from..to.min(c.len())].iter().collect();
            out.push(Token { kind, text, line });
        }
        line += c[start..i.min(c.len())]
            .iter()
            .filter(|&&ch| ch == '\n')
            .count();
    }
    out
}

// ---- one file's references -----------------------------------------------------------------

/// A path as written in a file, before it is resolved against the module tree.
#[derive(Debug)]
struct RawRef {
    segs: Vec<String>,
    inline: Vec<String>, // the inline modules (`mod tests { .. }`) it sits in, outermost first
    bound: Option<String>, // the name a `use` binds: `X` for `use a::X`, `Y` for `.. as Y`
    in_use: bool,
    test: bool,
    line: usize,
}

/// A `mod name;` item, which names a file.
#[derive(Debug)]
struct ModDecl {
    name: String,
    inline: Vec<String>,
    test: bool,
    path_attr: Option<String>,
}

#[derive(Debug, Default)]
struct Scan {
    refs: Vec<RawRef>,
    decls: Vec<ModDecl>,
    file_test: bool, // `#![cfg(test)]`
}

/// The token at `i` as code: a string literal reads as "", so that a "{" in one is no brace.
fn text(t: &[Token], i: usize) -> &str {
    t.get(i)
        .filter(|t| t.kind != Kind::Str)
        .map_or("", |t| &t.text)
}

fn is_ident(t: &[Token], i: usize) -> bool {
    t.get(i).is_some_and(|t| t.kind == Kind::Ident)
}

/// The index just past the bracket that closes the one at `open`.
fn close(t: &[Token], open: usize) -> usize {
    let mut depth = 0;
    for j in open..t.len() {
        match text(t, j) {
            "{" | "(" | "[" => depth += 1,
            "}" | ")" | "]" => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return j + 1;
        }
    }
    t.len()
}

/// The end of the item (or statement) at `i`: a `;` outside brackets or the end of its body.
fn item_end(t: &[Token], mut i: usize) -> usize {
    while i < t.len() {
        match text(t, i) {
            ";" => return i + 1,
            "{" => return close(t, i),
            "(" | "[" => i = close(t, i),
            _ => i += 1,
        }
    }
    t.len()
}

fn scan(t: &[Token]) -> Scan {
    let mut s = Scan::default();
    // The attributes first: which tokens are under #[cfg(test)], which `mod` has a #[path].
    let (mut test, mut paths) = (vec![false; t.len()], HashMap::new());
    for i in (0..t.len()).filter(|&i| text(t, i) == "#") {
        let inner = text(t, i + 1) == "!";
        let open = i + 1 + usize::from(inner);
        if text(t, open) != "[" {
            continue;
        }
        let end = close(t, open);
        let attr: Vec<&str> = (open + 1..end - 1).map(|j| text(t, j)).collect();
        if attr == ["cfg", "(", "test", ")"] {
            s.file_test |= inner;
            let item = if inner {
                end..end
            } else {
                end..item_end(t, end)
            };
            test[item].iter_mut().for_each(|x| *x = true);
        } else if attr.len() == 3 && attr[..2] == ["path", "="] {
            // The `mod` it applies to, unless an item without one ends first.
            let m = (end..t.len()).find(|&j| matches!(text(t, j), "mod" | ";" | "{"));
            paths.insert(m.filter(|&m| text(t, m) == "mod"), t[end - 2].text.clone());
        }
    }

    let mut inline: Vec<(usize, String)> = Vec::new(); // (brace depth inside it, name)
    let (mut depth, mut i) = (0, 0);
    while i < t.len() {
        let names: Vec<String> = inline.iter().map(|m| m.1.clone()).collect();
        let (test, line) = (test[i], t[i].line);
        let mut add = |segs, bound, in_use| {
            let inline = names.clone();
            s.refs.push(RawRef {
                segs,
                inline,
                bound,
                in_use,
                test,
                line,
            });
        };
        let word = if is_ident(t, i) { text(t, i) } else { "" };
        match text(t, i) {
            "{" => depth += 1,
            "}" => {
                if inline.last().is_some_and(|m| m.0 == depth) {
                    inline.pop();
                }
                depth -= 1;
            }
            // `pub(in crate::x)` limits visibility to an ancestor; it uses nothing.
            "pub" if text(t, i + 1) == "(" => {
                i = close(t, i + 1);
                continue;
            }
            "mod" if is_ident(t, i + 1) => {
                let name = text(t, i + 1).to_string();
                if text(t, i + 2) == "{" {
                    inline.push((depth + 1, name));
                } else {
                    let path_attr = paths.get(&Some(i)).cloned();
                    s.decls.push(ModDecl {
                        name,
                        inline: names,
                        test,
                        path_attr,
                    });
                }
                i += 2;
                continue;
            }
            // `use<'a>` is a precise-capture bound, not an import.
            "use" if text(t, i + 1) != "<" => {
                let mut leaves = Vec::new();
                let end = use_tree(t, i + 1, Vec::new(), &mut leaves);
                for (segs, bound) in leaves {
                    add(segs, bound, true);
                }
                i = (end..t.len())
                    .find(|&j| text(t, j) == ";")
                    .unwrap_or(t.len());
                continue;
            }
            // A path in code, from its start: `a::b::c`, not `::a::b` nor the `b::c` of it.
            _ if !word.is_empty()
                && text(t, i + 1) == "::"
                && is_ident(t, i + 2)
                && (i == 0 || text(t, i - 1) != "::") =>
            {
                let mut segs = vec![word.to_string()];
                i += 1;
                while text(t, i) == "::" && is_ident(t, i + 1) {
                    segs.push(text(t, i + 1).to_string());
                    i += 2;
                }
                add(segs, None, false);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    s
}

type Leaves = Vec<(Vec<String>, Option<String>)>;

/// Flattens the use tree at `i` into (path, bound name) leaves; returns the index after it.
fn use_tree(t: &[Token], mut i: usize, mut prefix: Vec<String>, out: &mut Leaves) -> usize {
    loop {
        match text(t, i) {
            "{" => {
                i += 1;
                while i < t.len() && text(t, i) != "}" {
                    i = use_tree(t, i, prefix.clone(), out);
                    i += usize::from(text(t, i) == ",");
                }
                return i + 1;
            }
            "*" => {
                out.push((prefix, None));
                return i + 1;
            }
            // A leading `::` names an extern crate: the marker keeps the path from resolving.
            "::" if prefix.is_empty() => prefix.push("::".into()),
            "::" => {}
            seg if is_ident(t, i) => {
                prefix.push(seg.to_string());
                if text(t, i + 1) != "::" {
                    if seg == "self" {
                        prefix.pop(); // `a::{self, X}` names `a` itself
                    }
                    let mut bound = prefix.last().cloned();
                    if text(t, i + 1) == "as" {
                        bound = Some(text(t, i + 2).to_string()).filter(|b| b != "_");
                        i += 2;
                    }
                    out.push((prefix, bound));
                    return i + 1;
                }
            }
            _ => return i, // not a use tree after all
        }
        i += 1;
    }
}

// ---- the crate: files, modules, and what each file uses ------------------------------------

/// `src/report/plot/svg.rs` -> `report::plot::svg`; `mod.rs` is its directory's module, and
/// `lib.rs` the root (no segments).
fn module_of(rel: &str) -> Vec<String> {
    let rel = rel.trim_start_matches("src/").trim_end_matches(".rs");
    let mut segs: Vec<String> = rel.split('/').map(String::from).collect();
    if matches!(segs.last().map(String::as_str), Some("mod" | "lib")) {
        segs.pop();
    }
    segs
}

fn library_files(dir: &Path, root: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "src/main.rs" || rel == "src/cli" {
            continue; // the binary: the top layer, free to use anything
        } else if path.is_dir() {
            library_files(&path, root, out);
        } else if rel.ends_with(".rs") {
            out.push(rel);
        }
    }
}

struct Crate {
    files: BTreeMap<Vec<String>, String>, // module path -> its file
    root_reexports: HashMap<String, Vec<String>>, // `Grid` -> `grid::Grid`, from src/lib.rs
}

type Aliases = HashMap<(Vec<String>, String), Vec<String>>; // (scope, name) -> module

impl Crate {
    /// The path `segs` names when written in module `ctx` (the file's module, then any inline
    /// modules: `file_depth` segments are the file's), and the longest prefix of it that is a
    /// module with a file. `None` for paths outside the crate: std, other crates, local items.
    fn resolve(
        &self,
        segs: &[String],
        ctx: &[String],
        file_depth: usize,
        aliases: &Aliases,
    ) -> Option<(Vec<String>, Vec<String>)> {
        let (mut path, mut rest) = match segs.first()?.as_str() {
            "crate" => (vec![], &segs[1..]),
            "self" => (ctx.to_vec(), &segs[1..]),
            "super" => (ctx.to_vec(), segs),
            first => {
                // A child module, or a module a `use` bound, in this module or (in inline test
                // modules, which `use super::*`) an enclosing one of the same file.
                let mut scopes = (file_depth..=ctx.len()).rev().map(|k| &ctx[..k]);
                let found = scopes.find_map(|s| {
                    let child = [s, &segs[..1]].concat();
                    let alias = aliases.get(&(s.to_vec(), first.to_string())).cloned();
                    self.files.contains_key(&child).then_some(child).or(alias)
                })?;
                (found, &segs[1..])
            }
        };
        while rest.first().is_some_and(|s| s == "super") {
            path.pop()?;
            rest = &rest[1..];
        }
        path.extend_from_slice(rest);
        if let Some(target) = path.first().and_then(|name| self.root_reexports.get(name)) {
            path.splice(..1, target.iter().cloned());
        }
        let module = (0..=path.len())
            .rev()
            .map(|k| &path[..k])
            .find(|m| self.files.contains_key(*m))?;
        Some((module.to_vec(), path))
    }
}

/// Everything wrong with the crate at `root`, and notes on paths it could not resolve.
fn check(root: &Path) -> (Vec<String>, Vec<String>) {
    let mut rels = Vec::new();
    library_files(&root.join("src"), root, &mut rels);
    let read = |rel: &String| scan(&lex(&std::fs::read_to_string(root.join(rel)).unwrap()));
    let scans: BTreeMap<String, Scan> = rels.iter().map(|rel| (rel.clone(), read(rel))).collect();

    let mut files: BTreeMap<Vec<String>, String> = rels
        .iter()
        .map(|rel| (module_of(rel), rel.clone()))
        .collect();
    let mut test_modules = Vec::new();
    for (rel, decl) in scans
        .iter()
        .flat_map(|(rel, s)| s.decls.iter().map(move |d| (rel, d)))
    {
        let module = [module_of(rel), decl.inline.clone(), vec![decl.name.clone()]].concat();
        if let Some(path) = &decl.path_attr {
            // #[path] is relative to the declaring file's directory.
            let file = Path::new(rel).parent().unwrap().join(path);
            let file = file.to_string_lossy().replace('\\', "/");
            files.retain(|_, f| *f != file);
            files.insert(module.clone(), file);
        }
        if decl.test {
            test_modules.push(module);
        }
    }
    let module_of_file: HashMap<&str, &[String]> = files
        .iter()
        .map(|(m, f)| (f.as_str(), m.as_slice()))
        .collect();
    let is_test = |rel: &str| {
        let name = rel.rsplit('/').next().unwrap();
        scans.get(rel).is_some_and(|s| s.file_test)
            || name == "tests.rs"
            || name == "prop_tests.rs"
            || test_modules
                .iter()
                .any(|t| module_of_file[rel].starts_with(t))
    };

    let mut krate = Crate {
        files: files.clone(),
        root_reexports: HashMap::new(),
    };
    for r in scans["src/lib.rs"]
        .refs
        .iter()
        .filter(|r| r.in_use && r.inline.is_empty())
    {
        if let (Some(name), Some((_, path))) =
            (&r.bound, krate.resolve(&r.segs, &[], 0, &HashMap::new()))
        {
            krate.root_reexports.insert(name.clone(), path);
        }
    }

    // (file, module it uses) -> (first line, whether only test code uses it); file -> files
    let mut uses: BTreeMap<(&str, Vec<String>), (usize, bool)> = BTreeMap::new();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut notes = Vec::new();
    for (module, rel) in files.iter().filter(|(m, _)| !m.is_empty()) {
        let Some(s) = scans.get(rel) else { continue };
        let file_test = is_test(rel);
        // `use`s first, so that the modules they bind resolve the paths in code.
        let mut refs: Vec<&RawRef> = s.refs.iter().collect();
        refs.sort_by_key(|r| !r.in_use);
        let mut aliases = Aliases::new();
        for r in refs {
            let ctx = [module.as_slice(), &r.inline].concat();
            let first = r.segs[0].as_str();
            let Some((target, path)) = krate.resolve(&r.segs, &ctx, module.len(), &aliases) else {
                if matches!(first, "crate" | "self" | "super") {
                    notes.push(format!(
                        "{rel}:{}: cannot resolve {}",
                        r.line,
                        r.segs.join("::")
                    ));
                }
                continue;
            };
            if let (true, Some(name)) = (r.in_use && target == path, &r.bound) {
                aliases.insert((ctx.clone(), name.clone()), path.clone());
            }
            if target.is_empty() {
                let what = r.segs.join("::");
                notes.push(format!(
                    "{rel}:{}: {what} is nothing src/lib.rs re-exports",
                    r.line
                ));
                continue;
            }
            let (to, test) = (&files[&target], r.test || file_test);
            if to != rel {
                let own_part = target.len() == module.len() + 1 && target.starts_with(module);
                let e = uses.entry((rel, target)).or_insert((r.line, true));
                *e = (e.0.min(r.line), e.1 && test);
                // A module's use of its own parts (`naive::INFO` in `strategy`, `pub use
                // csv::RowReader` in `results`) is its structure, not a dependency: the
                // parts may use what their parent holds.
                if !test && !is_test(to) && !own_part {
                    edges.entry(rel.clone()).or_default().insert(to.clone());
                }
            }
        }
    }

    // Every top-level module is in a layer, and uses nothing from a layer above its own.
    let mut problems = BTreeSet::new();
    for module in files
        .keys()
        .filter(|m| m.len() == 1 && layer_of(&m[0]).is_none())
    {
        problems.insert(format!(
            "{}: {} is in no layer: add it to LAYERS",
            files[module], module[0]
        ));
    }
    for ((rel, target), (line, test)) in uses {
        let from = module_of_file[rel];
        let (Some((fl, fname)), Some((tl, tname))) = (layer_of(&from[0]), layer_of(&target[0]))
        else {
            continue; // reported above
        };
        if tl > fl {
            let (from, to) = (from.join("::"), target.join("::"));
            let test = if test { ", test code" } else { "" };
            problems.insert(format!(
                "{rel}: {from} ({fname}, {fl}) uses crate::{to} ({tname}, {tl}), line {line}{test}"
            ));
        }
    }
    let mut problems: Vec<String> = problems.into_iter().collect();
    problems.extend(cycles(&edges));
    (problems, notes)
}

// ---- cycles --------------------------------------------------------------------------------

/// Every cycle through the file graph, as found by Tarjan's strongly connected components:
/// each import inside a component of two or more files is reported on the shortest cycle
/// through it, so the list names every import that could be cut to break the cycles.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: HashMap<&'a str, (usize, usize)>, // file -> (visit order, lowest order reached)
        stack: Vec<&'a str>,
        components: Vec<BTreeSet<&'a str>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, (n, n));
            self.stack.push(v);
            let edges = self.edges;
            for w in edges.get(v).into_iter().flatten().map(String::as_str) {
                let reach = match self.index.get(w) {
                    None => {
                        self.visit(w);
                        self.index[w].1
                    }
                    Some(&(order, _)) if self.stack.contains(&w) => order,
                    Some(_) => continue,
                };
                let low = &mut self.index.get_mut(v).unwrap().1;
                *low = (*low).min(reach);
            }
            if self.index[v].0 == self.index[v].1 {
                let at = self.stack.iter().position(|&x| x == v).unwrap();
                self.components
                    .push(self.stack.split_off(at).into_iter().collect());
            }
        }
    }
    let mut t = Tarjan {
        edges,
        index: HashMap::new(),
        stack: vec![],
        components: vec![],
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }

    let mut found = BTreeSet::new();
    for inside in t.components.iter().filter(|c| c.len() > 1) {
        let inner = inside
            .iter()
            .flat_map(|&u| edges[u].iter().map(move |v| (u, v.as_str())));
        for (u, v) in inner.filter(|(_, v)| inside.contains(v)) {
            // The shortest way back from v to u closes the cycle u -> v -> .. -> u.
            let mut prev = HashMap::from([(v, v)]);
            let mut queue = VecDeque::from([v]);
            while let Some(x) = queue.pop_front() {
                for y in edges.get(x).into_iter().flatten().map(String::as_str) {
                    if inside.contains(y) && !prev.contains_key(y) {
                        prev.insert(y, x);
                        queue.push_back(y);
                    }
                }
            }
            let mut cycle = vec![u];
            while cycle.last() != Some(&v) {
                cycle.push(prev[cycle.last().unwrap()]);
            }
            cycle.reverse(); // v .. u
                             // Named from its smallest file, a cycle reads the same whichever import found it.
            let first = (0..cycle.len()).min_by_key(|&k| cycle[k]).unwrap();
            cycle.rotate_left(first);
            cycle.push(cycle[0]);
            found.insert(format!("cycle: {}", cycle.join(" -> ")));
        }
    }
    found.into_iter().collect()
}

// ---- the check's own tests -----------------------------------------------------------------

#[cfg(test)]
mod parser {
    use super::*;

    fn paths(src: &str) -> Vec<String> {
        scan(&lex(src))
            .refs
            .iter()
            .map(|r| r.segs.join("::"))
            .collect()
    }

    fn module(path: &str) -> Vec<String> {
        path.split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    }

    /// The module `path`, written in module `ctx`, resolves to, in a crate of `modules`.
    fn resolve(modules: &[&str], path: &str, ctx: &str) -> Option<String> {
        let files = modules
            .iter()
            .map(|m| (module(m), format!("src/{m}.rs")))
            .collect();
        let krate = Crate {
            files,
            root_reexports: HashMap::new(),
        };
        let ctx = module(ctx);
        let found = krate.resolve(&module(path), &ctx, ctx.len(), &Aliases::new());
        found.map(|(m, _)| m.join("::"))
    }

    #[test]
    fn use_groups_flatten() {
        let uses = "use crate::{a::X, b::{Y, Z}}; pub(crate) use super::{self, c as d, e::*};";
        let want = [
            "crate::a::X",
            "crate::b::Y",
            "crate::b::Z",
            "super",
            "super::c",
            "super::e",
        ];
        assert_eq!(paths(uses), want);
        let bound: Vec<_> = scan(&lex(uses)).refs.into_iter().map(|r| r.bound).collect();
        assert_eq!(bound[3..], [Some("super".into()), Some("d".into()), None]);
    }

    #[test]
    fn super_super_self_and_children_resolve_from_the_module() {
        let modules = ["", "a", "a::b", "a::b::c", "a::d"];
        let r = |path, ctx| resolve(&modules, path, ctx);
        assert_eq!(r("super::super::d::E", "a::b::c").as_deref(), Some("a::d"));
        assert_eq!(r("super::E", "a::b::c").as_deref(), Some("a::b"));
        assert_eq!(r("self::c::f", "a::b").as_deref(), Some("a::b::c"));
        assert_eq!(
            r("c::f", "a::b").as_deref(),
            Some("a::b::c"),
            "a child module"
        );
        assert_eq!(
            r("crate::a::b::c::X::new", "a::d").as_deref(),
            Some("a::b::c")
        );
        assert_eq!(r("std::fmt::Write", "a"), None);
        assert_eq!(r("super::super::x", "a"), None, "above the crate root");
    }

    #[test]
    fn paths_in_code_are_references() {
        let code =
            "fn f() { crate::strategy::STRATEGIES.to_vec(); super::csv::push_row(x.y::<u8>()) }";
        assert_eq!(
            paths(code),
            ["crate::strategy::STRATEGIES", "super::csv::push_row"]
        );
        assert_eq!(
            paths("fn f() -> io::Result<()> { ::core::mem::drop(1u8) }"),
            ["io::Result"]
        );
        assert!(paths("pub(in crate::strategy) fn f() {}").is_empty());
    }

    #[test]
    fn comments_strings_and_chars_are_not_references() {
        let src = r####"
            //! see [`crate::runner::Runner`]
            /// [`crate::report::csv`]
            // crate::a::b
            /* crate::c::d /* nested crate::e::f */ crate::g::h */
            fn f<'a>(x: &'a str) {
                let s = "crate::s::t \" crate::u::v {";
                let r = (r#"crate::w::x " crate::y::z"#, b"crate::q::r", br"{");
                let c = ('{', '"', '\'', b'}', r#match);
                crate::real::one();
            }
        "####;
        assert_eq!(paths(src), ["crate::real::one"]);
    }

    #[test]
    fn cfg_test_items_are_test_code() {
        let src = "use crate::a::X;
            #[cfg(test)]
            #[allow(unused)]
            mod tests {
                use super::*;
                fn g() { let _ = '}'; crate::b::f(); }
            }
            fn h() { crate::c::f() }
            #[cfg(test)]
            mod more;";
        let s = scan(&lex(src));
        let refs: Vec<_> = s.refs.iter().map(|r| (r.segs.join("::"), r.test)).collect();
        let want = [
            ("crate::a::X", false),
            ("super", true),
            ("crate::b::f", true),
            ("crate::c::f", false),
        ];
        assert_eq!(refs, want.map(|(p, t)| (p.to_string(), t)));
        assert_eq!(
            s.refs[1].inline,
            ["tests"],
            "`super` in `mod tests` is the file's own module"
        );
        assert!(s.refs[3].inline.is_empty());
        assert_eq!((s.decls[0].name.as_str(), s.decls[0].test), ("more", true));
    }

    #[test]
    fn files_map_to_modules() {
        assert_eq!(
            module_of("src/report/plot/svg.rs"),
            ["report", "plot", "svg"]
        );
        assert_eq!(module_of("src/report/mod.rs"), ["report"]);
        assert_eq!(module_of("src/grid/avx2.rs"), ["grid", "avx2"]);
        assert!(module_of("src/lib.rs").is_empty());
    }

    #[test]
    fn cycles_are_named_from_their_smallest_file() {
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in [
            ("b", "c"),
            ("c", "a"),
            ("a", "b"),
            ("c", "d"),
            ("d", "e"),
            ("e", "b"),
        ] {
            edges.entry(a.into()).or_default().insert(b.into());
        }
        let want = ["cycle: a -> b -> c -> a", "cycle: b -> c -> d -> e -> b"];
        assert_eq!(cycles(&edges), want);
    }
}
