//! `wyrd monitor`: a page on localhost that watches a running game through
//! its Bevy Remote Protocol endpoint (`WyrdRemotePlugin`, the games'
//! `--remote`).
//!
//! The page (`monitor/index.html`, plain HTML, CSS, JS and SVG, no build
//! step) is compiled into the command. Its requests go to this server's
//! `/brp`, which passes them on to the game: the page and the game need
//! not agree on CORS, and the game may be on another machine the browser
//! cannot reach.

use std::io::Read;
use std::time::Duration;

use tiny_http::{Header, Method, Request, Response, Server};

use crate::{Failure, bad, usage};

/// The page, with `__GAME__` replaced by the game's address.
const PAGE: &str = include_str!("monitor/index.html");

/// The largest request the page sends (a world-state edit is a few bytes;
/// this bounds what a stray client can make the server read).
const MAX_REQUEST: u64 = 1 << 20;

/// The largest answer passed on (a long flight recording is megabytes).
const MAX_ANSWER: u64 = 256 << 20;

/// What `wyrd monitor` serves and where it finds the game.
pub struct MonitorArgs {
    /// The game's endpoint: `PORT`, `HOST:PORT` or `http://HOST:PORT`.
    pub game: String,
    /// The address the page is served on.
    pub address: String,
    /// The page's port.
    pub port: u16,
}

/// The game's endpoint as a URL.
pub fn game_url(game: &str) -> Result<String, Failure> {
    let url = if game.starts_with("http://") || game.starts_with("https://") {
        game.to_owned()
    } else if game.parse::<u16>().is_ok() {
        format!("http://127.0.0.1:{game}")
    } else if game.contains(':') {
        format!("http://{game}")
    } else {
        return Err(usage(format!(
            "--game {game:?}: give the game's port (15702), HOST:PORT or http://HOST:PORT"
        )));
    };
    Ok(url.trim_end_matches('/').to_owned())
}

/// Serves the page until the process is stopped.
pub fn monitor(args: &MonitorArgs) -> Result<(), Failure> {
    let game = game_url(&args.game)?;
    let server = Server::http((args.address.as_str(), args.port)).map_err(|e| {
        bad(format!(
            "wyrd monitor: cannot listen on {}:{}: {e} (another program has the port? try --port)",
            args.address, args.port
        ))
    })?;
    let page = PAGE.replace("__GAME__", &game);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(10)))
        .http_status_as_error(false)
        .build()
        .into();
    println!(
        "Wyrd monitor on http://{}:{}/ watching the game at {game} (start it with --remote); Ctrl+C stops it",
        args.address, args.port
    );
    for request in server.incoming_requests() {
        answer(request, &page, &game, &agent);
    }
    Ok(())
}

/// Answers one request: the page, or a remote call passed on.
fn answer(mut request: Request, page: &str, game: &str, agent: &ureq::Agent) {
    let response = match (request.method(), request.url()) {
        (Method::Get, "/" | "/index.html") => {
            Response::from_string(page).with_header(header("text/html; charset=utf-8"))
        }
        (Method::Post, "/brp") => {
            let mut body = String::new();
            let read = request
                .as_reader()
                .take(MAX_REQUEST)
                .read_to_string(&mut body);
            let (status, text) = match read {
                Ok(_) => pass_on(agent, game, body),
                Err(e) => (400, rpc_error(&format!("unreadable request: {e}"))),
            };
            Response::from_string(text)
                .with_status_code(status)
                .with_header(header("application/json"))
        }
        _ => Response::from_string("not found: the monitor serves / and /brp")
            .with_status_code(404)
            .with_header(header("text/plain; charset=utf-8")),
    };
    // A browser that went away mid-answer is not the monitor's error.
    let _ = request.respond(response);
}

/// Sends a JSON-RPC request to the game; its answer, or a JSON-RPC error
/// saying why the game did not answer (status 502).
fn pass_on(agent: &ureq::Agent, game: &str, body: String) -> (u16, String) {
    let sent = agent
        .post(game)
        .header("Content-Type", "application/json")
        .send(body);
    match sent {
        Ok(mut answer) => {
            let status = answer.status().as_u16();
            match answer
                .body_mut()
                .with_config()
                .limit(MAX_ANSWER)
                .read_to_string()
            {
                Ok(text) => (status, text),
                Err(e) => (502, rpc_error(&format!("the game's answer broke off: {e}"))),
            }
        }
        Err(e) => (
            502,
            rpc_error(&format!(
                "no answer from the game at {game}: {e} (is it running with --remote?)"
            )),
        ),
    }
}

fn rpc_error(message: &str) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32000, "message": message},
    })
    .to_string()
}

fn header(content_type: &str) -> Header {
    Header::from_bytes(&b"Content-Type"[..], content_type.as_bytes())
        .expect("a content type is a valid header")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_game_is_a_port_an_address_or_a_url() {
        assert_eq!(game_url("15702").unwrap(), "http://127.0.0.1:15702");
        assert_eq!(game_url("10.0.0.2:9000").unwrap(), "http://10.0.0.2:9000");
        assert_eq!(game_url("http://box:1/").unwrap(), "http://box:1");
        let e = game_url("box").err().unwrap();
        assert!(e.message.contains("HOST:PORT"), "{}", e.message);
    }
}
