//! `wyrd monitor` without a browser: the page it serves, the requests it
//! passes on, and what it answers when the game is not there. (The page
//! itself is driven in Chromium by the facade's `tests/games/monitor.rs`.)

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A free local port (bound, read, let go).
fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap()
}

/// Starts `wyrd monitor` and waits for its first line (it listens by then).
fn monitor(game: &str, port: u16) -> (Running, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wyrd"))
        .args(["monitor", "--game", game, "--port", &port.to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    (Running(child), first)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(20)))
        .http_status_as_error(false)
        .build()
        .into()
}

#[test]
fn the_monitor_serves_its_page_and_says_when_the_game_does_not_answer() {
    // Nobody listens on the game's port.
    let (game, page) = (free_port(), free_port());
    let (_monitor, first) = monitor(&game.to_string(), page);
    assert!(
        first.contains(&format!("http://127.0.0.1:{page}/"))
            && first.contains(&format!("http://127.0.0.1:{game}")),
        "{first}"
    );
    let agent = agent();
    let mut html = agent
        .get(&format!("http://127.0.0.1:{page}/"))
        .call()
        .unwrap();
    assert_eq!(html.status().as_u16(), 200);
    let html = html.body_mut().read_to_string().unwrap();
    assert!(html.contains("<title>Wyrd monitor</title>"));
    assert!(
        html.contains(&format!("http://127.0.0.1:{game}")),
        "the page names the game"
    );

    let mut answer = agent
        .post(&format!("http://127.0.0.1:{page}/brp"))
        .send(r#"{"jsonrpc":"2.0","id":1,"method":"wyrd.agents","params":{}}"#)
        .unwrap();
    assert_eq!(answer.status().as_u16(), 502);
    let json: serde_json::Value =
        serde_json::from_str(&answer.body_mut().read_to_string().unwrap()).unwrap();
    let message = json["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "no answer from the game at http://127.0.0.1:{game}"
        )) && message.contains("--remote"),
        "{message}"
    );

    let missing = agent
        .get(&format!("http://127.0.0.1:{page}/nothing"))
        .call()
        .unwrap();
    assert_eq!(missing.status().as_u16(), 404);
}

#[test]
fn the_monitor_passes_requests_on_to_the_game_and_its_answers_back() {
    // A stand-in game: one HTTP exchange, answered with a JSON-RPC result
    // that echoes the method it was sent.
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let game = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        use std::io::{Read, Write};
        let (mut stream, _) = listener.accept().unwrap();
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        // Head and body (small: one read of each is enough here, but read
        // until the body's closing brace to be sure).
        while !seen.ends_with(b"}") {
            let n = stream.read(&mut buf).unwrap();
            assert!(n > 0, "the monitor closed early");
            seen.extend_from_slice(&buf[..n]);
        }
        let text = String::from_utf8(seen).unwrap();
        let body = r#"{"jsonrpc":"2.0","id":7,"result":{"echo":"wyrd.pause"}}"#;
        write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        text
    });
    let page = free_port();
    let (_monitor, _) = monitor(&format!("127.0.0.1:{game}"), page);
    let mut answer = agent()
        .post(&format!("http://127.0.0.1:{page}/brp"))
        .send(r#"{"jsonrpc":"2.0","id":7,"method":"wyrd.pause","params":{}}"#)
        .unwrap();
    assert_eq!(answer.status().as_u16(), 200);
    let json: serde_json::Value =
        serde_json::from_str(&answer.body_mut().read_to_string().unwrap()).unwrap();
    assert_eq!(json["result"]["echo"], "wyrd.pause");
    let sent = server.join().unwrap();
    assert!(sent.starts_with("POST / HTTP/1.1"), "{sent}");
    assert!(sent.contains(r#""method":"wyrd.pause""#), "{sent}");
}

#[test]
fn a_game_that_is_not_an_address_is_a_usage_error() {
    let o = Command::new(env!("CARGO_BIN_EXE_wyrd"))
        .args(["monitor", "--game", "somewhere"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("HOST:PORT"));
}
