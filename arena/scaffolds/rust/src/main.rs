//! NAME: a Thirty-One Arena bot in Rust that speaks the arena's JSON-lines protocol
//! (docs/PROTOCOL.md in the arena's repository).
//!
//! It reads one message per line on stdin and answers on stdout, flushing each line:
//!   {"type":"hello",...}   -> {"type":"hello","name":"NAME","version":"0.1.0","protocol":1}
//!   {"type":"decide",...}  -> {"type":"action","id":ID,"action":"ONE OF legal"}
//!   {"type":"bye"}         -> exit
//! Everything else (match_start, events, match_end, error) needs no answer.  Its choice is
//! random: replace `choose` with your strategy.  Debug output goes to stderr, never stdout.

use std::io::{self, BufRead, Write};

/// The value of the string field `name` in `line` (escapes kept as written).
fn string_field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("\"{}\":\"", name);
    let start = line.find(&key)? + key.len();
    let bytes = line.as_bytes();
    let mut end = start;
    while end < bytes.len() && bytes[end] != b'"' {
        end += if bytes[end] == b'\\' { 2 } else { 1 };
    }
    line.get(start..end.min(bytes.len()))
}

/// The number in the field `name` of `line`.
fn number_field(line: &str, name: &str) -> Option<i64> {
    let key = format!("\"{}\":", name);
    let rest = &line[line.find(&key)? + key.len()..];
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    digits.parse().ok()
}

/// The strings of the array field `name` (escapes kept as written).
fn string_array<'a>(line: &'a str, name: &str) -> Vec<&'a str> {
    let key = format!("\"{}\":[", name);
    let mut found = Vec::new();
    let Some(at) = line.find(&key) else { return found };
    let bytes = line.as_bytes();
    let mut i = at + key.len();
    while i < bytes.len() && bytes[i] != b']' {
        if bytes[i] == b'"' {
            let start = i + 1;
            let mut end = start;
            while end < bytes.len() && bytes[end] != b'"' {
                end += if bytes[end] == b'\\' { 2 } else { 1 };
            }
            found.push(&line[start..end.min(bytes.len())]);
            i = end + 1;
        } else {
            i += 1;
        }
    }
    found
}

/// Your strategy: one of `legal`, exactly as written.
fn choose<'a>(legal: &[&'a str], state: &mut u64) -> &'a str {
    *state ^= *state << 13; // xorshift64
    *state ^= *state >> 7;
    *state ^= *state << 17;
    legal[(*state % legal.len() as u64) as usize]
}

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    let mut state: u64 = 88172645463325252;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        match string_field(&line, "type") {
            Some("hello") => {
                writeln!(out, r#"{{"type":"hello","name":"NAME","version":"0.1.0","protocol":1}}"#).ok();
            }
            Some("decide") => {
                let legal = string_array(&line, "legal");
                if let (Some(id), false) = (number_field(&line, "id"), legal.is_empty()) {
                    let action = choose(&legal, &mut state);
                    writeln!(out, r#"{{"type":"action","id":{},"action":"{}"}}"#, id, action).ok();
                }
            }
            Some("bye") => break,
            _ => continue,
        }
        out.flush().ok();
    }
}
