//! The PostgreSQL history (`--db postgres://...`, the `postgres` feature) against a real
//! server the test starts itself: Debian's `postgresql`, `initdb` into a temporary
//! directory and `pg_ctl start` on a Unix socket there (no TCP port to clash with). The same
//! `history add`s go into it and into an SQLite file, and every `history check` and every
//! refusal must come out the same from both. Skipped, saying so, where the server is not
//! installed; without the feature, a URL is refused saying how to build with it.

#[cfg(feature = "postgres")]
use std::path::{Path, PathBuf};
#[cfg(feature = "postgres")]
use std::process::Command;

use crate::bench;
#[cfg(feature = "postgres")]
use crate::history::{run_fast, sha, Setup};
#[cfg(feature = "postgres")]
use crate::say_skipped;

/// What a command said, with the database's name put as `DB`: the one thing that may
/// differ between the two stores.
type Said = (Option<i32>, String, String);

fn history(db: &str, words: &[&str]) -> Said {
    let out = bench()
        .arg("history")
        .args(words)
        .args(["--db", db])
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).replace(db, "DB");
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[cfg(not(feature = "postgres"))]
#[test]
fn without_the_feature_a_postgres_url_is_refused_saying_how_to_build_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("s.json");
    crate::history::run_fast("datasets/classic.txt", &["-o", "-"], &summary);
    let summary = summary.display().to_string();
    for words in [&["check"][..], &["add", &summary, "--commit", "abcd"][..]] {
        let (code, _, err) = history("postgres://ci:s3cret@db.example/bench", words);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains(
                "postgres://ci:***@db.example/bench: this sudoku-bench was built without \
                 PostgreSQL"
            ),
            "{err}"
        );
        assert!(err.contains("--features postgres"), "{err}");
    }
}

/// Debian's server binaries (`initdb`, `pg_ctl`): the newest of /usr/lib/postgresql/*/bin,
/// or on PATH.
#[cfg(feature = "postgres")]
fn server_bin() -> Option<PathBuf> {
    let has = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse().ok()?;
            Some((v, e.path().join("bin")))
        })
        .filter(|(_, bin)| has(bin))
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    std::env::split_paths(&std::env::var_os("PATH")?).find(|dir| has(dir))
}

/// A PostgreSQL server of its own, on a Unix socket in its temporary directory; stopped
/// when dropped, so that a failing test does not leave it running.
#[cfg(feature = "postgres")]
struct Server {
    bin: PathBuf,
    dir: tempfile::TempDir,
    /// `runuser -u postgres --` where the test runs as root, which the server refuses.
    as_user: Vec<String>,
}

#[cfg(feature = "postgres")]
impl Server {
    /// `None`, after saying why, where it cannot be started.
    fn start() -> Option<Server> {
        let Some(bin) = server_bin() else {
            say_skipped("PostgreSQL server not installed (apt-get install postgresql)");
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        let mut as_user = Vec::new();
        if unsafe { libc::geteuid() } == 0 {
            // initdb and postgres refuse to run as root: run them as the user Debian's
            // package makes, in a directory of its own.
            let uid = Command::new("id").args(["-u", "postgres"]).output().ok();
            let uid = uid
                .filter(|o| o.status.success())
                .and_then(|o| String::from_utf8(o.stdout).ok()?.trim().parse().ok());
            let Some(uid) = uid else {
                say_skipped("running as root, and there is no postgres user to run the server as");
                return None;
            };
            std::os::unix::fs::chown(dir.path(), Some(uid), None).unwrap();
            as_user = ["runuser", "-u", "postgres", "--"]
                .map(String::from)
                .to_vec();
        }
        let server = Server { bin, dir, as_user };
        let data = server.data();
        let out = server
            .command("initdb")
            .args([
                "-A",
                "trust",
                "-U",
                "bench",
                "-E",
                "UTF8",
                "--no-sync",
                "-D",
            ])
            .arg(&data)
            .output()
            .unwrap();
        assert!(out.status.success(), "initdb: {out:?}");
        let socket = format!("-k {} -c listen_addresses=''", server.dir.path().display());
        let out = server
            .command("pg_ctl")
            .args(["-w", "-t", "60", "-D"])
            .arg(&data)
            .arg("-l")
            .arg(server.dir.path().join("log"))
            .args(["-o", &socket, "start"])
            .output()
            .unwrap();
        if !out.status.success() {
            let log = std::fs::read_to_string(server.dir.path().join("log")).unwrap_or_default();
            panic!("pg_ctl start: {out:?}\n{log}");
        }
        Some(server)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn command(&self, program: &str) -> Command {
        let program = self.bin.join(program);
        let mut cmd = match self.as_user.split_first() {
            Some((first, rest)) => {
                let mut cmd = Command::new(first);
                cmd.args(rest).arg(program);
                cmd
            }
            None => Command::new(program),
        };
        cmd.current_dir(self.dir.path());
        cmd
    }

    /// The URL of database `name` over the socket.
    fn url(&self, name: &str) -> String {
        let dir = self.dir.path().display().to_string().replace('/', "%2F");
        format!("postgres://bench@{dir}/{name}")
    }

    /// A client of database `name`.
    fn client(&self, name: &str) -> postgres::Client {
        postgres::Client::connect(&self.url(name), postgres::NoTls).unwrap()
    }
}

#[cfg(feature = "postgres")]
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self
            .command("pg_ctl")
            .args(["-m", "immediate", "-D"])
            .arg(self.data())
            .arg("stop")
            .output();
    }
}

/// The same `history` command on both stores: what it said, the same from both.
#[cfg(feature = "postgres")]
fn both(sqlite: &str, postgres: &str, words: &[&str]) -> Said {
    let lite = history(sqlite, words);
    let pg = history(postgres, words);
    assert_eq!(lite, pg, "history {words:?}: SQLite, then PostgreSQL");
    lite
}

/// 18 real runs of a `cmd:` solver sleeping 40 ms a puzzle, 20 ms on commits 7-12, one
/// `history add` per commit into an SQLite file and into PostgreSQL; then every check,
/// and every refusal, the same from both.
#[cfg(feature = "postgres")]
#[test]
fn the_same_history_gives_the_same_answers_from_sqlite_and_postgres() {
    let Some(server) = Server::start() else {
        return;
    };
    let Some(s) = Setup::new() else { return };
    let mut admin = server.client("postgres");
    // One statement each: CREATE DATABASE runs outside a transaction, which several
    // statements in one call would make.
    for name in ["history", "other"] {
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
    }
    let pg = server.url("history");
    let lite = s.path("history.sqlite").display().to_string();

    // Reading a history that is not there yet: refused alike, and none made.
    let (code, _, err) = both(&lite, &pg, &["check"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("DB: no history there"), "{err}");
    assert!(!Path::new(&lite).exists());

    for i in 0..18 {
        let seconds = if (7..13).contains(&i) {
            "0.020"
        } else {
            "0.040"
        };
        let summary = s.run(&format!("s{i}.json"), seconds);
        let summary = summary.display().to_string();
        let time = (1_700_000_000 + i).to_string();
        let (code, _, err) = both(
            &lite,
            &pg,
            &[
                "add",
                &summary,
                "--commit",
                &sha(i),
                "--time",
                &time,
                "--branch",
                "main",
                "--label",
                "runner=ci",
            ],
        );
        assert_eq!(code, Some(0), "{err}");
        assert!(err.contains(&format!("under commit {}", sha(i))), "{err}");
    }
    // The changes, --since before the slowdown (exit 1) and after it (0), a branch with
    // no runs.
    let (code, out, err) = both(&lite, &pg, &["check", "--min-change", "20%"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("2 change(s) in 2 series over 18 commits"),
        "{out}"
    );
    let (code, out, _) = both(
        &lite,
        &pg,
        &["check", "--min-change", "20%", "--since", &sha(12)[..12]],
    );
    assert_eq!(code, Some(1), "{out}");
    let (code, _, _) = both(&lite, &pg, &["check", "--since", &sha(13)]);
    assert_eq!(code, Some(0));
    both(
        &lite,
        &pg,
        &["check", "--branch", "other", "--p-value", "5%"],
    );

    // Refusals, alike and all or nothing: a summary again (a no-op), under another commit,
    // another time for a recorded commit, and an add whose second summary holds a corpus
    // under another name, which keeps nothing of the first.
    let s3 = s.path("s3.json").display().to_string();
    let (code, _, err) = both(&lite, &pg, &["add", &s3, "--commit", &sha(3)]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("already recorded under this commit"), "{err}");
    let (code, _, err) = both(&lite, &pg, &["add", &s3, "--commit", &sha(4)]);
    assert_eq!(code, Some(2), "{err}");
    let first = s.path("first.json");
    run_fast("datasets/classic.txt", &["-o", "-"], &first);
    let first = first.display().to_string();
    let (code, _, err) = both(
        &lite,
        &pg,
        &["add", &first, "--commit", &sha(5), "--time", "1700000099"],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--time says"), "{err}");
    let copy = s.path("classic-copy.txt");
    std::fs::copy("datasets/classic.txt", &copy).unwrap();
    let renamed = s.path("renamed.json");
    run_fast(&copy.display().to_string(), &["-o", "-"], &renamed);
    let (code, _, err) = both(
        &lite,
        &pg,
        &[
            "add",
            &first,
            &renamed.display().to_string(),
            "--commit",
            &sha(20),
        ],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("holds the same puzzles as datasets/classic.txt"),
        "{err}"
    );
    let (_, out, _) = both(&lite, &pg, &["check", "--min-change", "20%"]);
    assert!(
        out.contains("over 18 commits"),
        "the refused add kept something: {out}"
    );
    // Relative times (schema version 2's table), recorded and read back alike; again,
    // they join the run recorded.
    for _ in 0..2 {
        let (code, _, err) = both(
            &lite,
            &pg,
            &["add", &first, "--commit", &sha(19), "--relative-to", "dlx"],
        );
        assert_eq!(code, Some(0), "{err}");
    }
    let (_, out, _) = both(&lite, &pg, &["check", "--min-change", "20%"]);
    assert!(out.contains("over 19 commits"), "{out}");
    let in_pg: i64 = server
        .client("history")
        .query_one("SELECT count(*) FROM relative", &[])
        .unwrap()
        .get(0);
    let in_lite: i64 = rusqlite::Connection::open(&lite)
        .unwrap()
        .query_row("SELECT count(*) FROM relative", [], |r| r.get(0))
        .unwrap();
    assert_eq!((in_pg, in_lite), (1, 1), "fast / dlx on classic.txt, once");

    // A history of a newer sudoku-bench: refused, and left as it was.
    let mut client = server.client("history");
    client
        .batch_execute("UPDATE schema_version SET version = version + 1")
        .unwrap();
    rusqlite::Connection::open(&lite)
        .unwrap()
        .execute("UPDATE schema_version SET version = version + 1", [])
        .unwrap();
    let tables = "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()";
    let before: i64 = client.query_one(tables, &[]).unwrap().get(0);
    let (code, _, err) = both(&lite, &pg, &["add", &first, "--commit", &sha(21)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("DB: the history is at schema version 4"),
        "{err}"
    );
    let version: i64 = client
        .query_one("SELECT max(version) FROM schema_version", &[])
        .unwrap()
        .get(0);
    let after: i64 = client.query_one(tables, &[]).unwrap().get(0);
    assert_eq!((version, after), (4, before));

    // A database that is not there, a server that is not there: the server's message, or
    // the client's, after the URL.
    let (code, _, err) = history(&server.url("nosuch"), &["check"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("DB: db error: FATAL: database \"nosuch\" does not exist"),
        "{err}"
    );
    let (code, _, err) = history("postgres://bench@%2Fnonexistent/history", &["check"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("DB: error connecting to server: "), "{err}");

    // A database that holds something else: refused, and left as it was.
    let mut other = server.client("other");
    other.batch_execute("CREATE TABLE mine (x INT)").unwrap();
    let (code, _, err) = history(&server.url("other"), &["add", &first, "--commit", &sha(1)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("DB: a database that is not a sudoku-bench history"),
        "{err}"
    );
    let count: i64 = other.query_one(tables, &[]).unwrap().get(0);
    assert_eq!(count, 1);
}
