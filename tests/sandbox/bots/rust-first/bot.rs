//! Plays the first legal action, after starting what a Rust program's runtime commonly
//! starts: a thread, the CPU count, a file in its scratch folder, the clock.  Built by the
//! test with `rustc -O bot.rs`; no crates.
use std::io::{self, BufRead, Write};

fn field_after<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.find(key)? + key.len();
    Some(line[at..].trim_start_matches(|c: char| c == ':' || c == ' '))
}

fn main() {
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    let worker = std::thread::spawn(move || cpus * 2);
    let doubled = worker.join().unwrap_or(0);
    std::fs::write("started", format!("{} {}", doubled, std::time::SystemTime::now().elapsed().is_ok())).unwrap();
    eprintln!("rust-first: {} cpus", cpus);
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        let kind = field_after(&line, "\"type\"").unwrap_or("");
        let reply = if kind.starts_with("\"hello\"") {
            "{\"type\": \"hello\", \"name\": \"rust-first\", \"version\": \"1.0.0\", \"protocol\": 1}".to_string()
        } else if kind.starts_with("\"decide\"") {
            let id: String = field_after(&line, "\"id\"").unwrap_or("").chars().take_while(|c| c.is_ascii_digit()).collect();
            let legal = field_after(&line, "\"legal\"").unwrap_or("");
            let first = legal.split('"').nth(1).unwrap_or("");
            format!("{{\"type\": \"action\", \"id\": {}, \"action\": \"{}\"}}", id, first)
        } else if kind.starts_with("\"bye\"") {
            break;
        } else {
            continue;
        };
        writeln!(out, "{}", reply).unwrap();
        out.flush().unwrap();
    }
}
