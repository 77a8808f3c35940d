//! The agent surface from the command line: `plumb tool` (one JSON call
//! on standard input) and `plumb mcp` (the MCP server), with the
//! workspace root, remote prefixes and catalogs they are given.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use plumb::Refusal;
use serde_json::Value;

use crate::{emit, plumb, refuse};

#[derive(Args, Debug)]
pub(crate) struct Agent {
    /// The workspace root: no path may lead outside it.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub(crate) root: PathBuf,
    /// A reserved subtree (a glob relative to the root; `.git/` always is).
    #[arg(long = "reserve", value_name = "GLOB")]
    pub(crate) reserve: Vec<String>,
    /// A catalog entry: NAME resolves to PATH before any file named NAME.
    #[arg(long = "catalog", value_name = "NAME=PATH", value_parser = parse_catalog)]
    pub(crate) catalog: Vec<(String, PathBuf)>,
    /// A remote prefix the agent may read under (s3://bucket/prefix,
    /// https://host/path; repeatable). Judged on the parsed URL: scheme,
    /// bucket or host, port, and whole key segments. Redirects are not
    /// followed. Without it, a URL is refused.
    #[arg(long = "allow-remote", value_name = "URL")]
    pub(crate) allow_remote: Vec<String>,
}

pub(crate) fn parse_catalog(s: &str) -> Result<(String, PathBuf), String> {
    match s.split_once('=') {
        Some((name, path)) if !name.trim().is_empty() && !path.trim().is_empty() => {
            Ok((name.trim().to_owned(), PathBuf::from(path.trim())))
        }
        _ => Err(format!("`{s}` is not NAME=PATH")),
    }
}

impl Agent {
    pub(crate) fn toolbox(&self) -> Result<plumb_tool::Toolbox, Refusal> {
        let ws = plumb_tool::Workspace::new(&self.root, &self.reserve, &self.catalog)?;
        #[allow(unused_mut)]
        let mut toolbox = plumb_tool::Toolbox::new(ws).with_plumb(plumb());
        #[cfg(feature = "remote")]
        {
            let list = plumb_remote::AllowList::new(&self.allow_remote)?;
            let config = plumb_remote::RemoteConfig {
                follow_redirects: false,
                ..plumb_remote::RemoteConfig::from_env()?
            };
            toolbox = toolbox.with_remote(
                plumb_tool::RemoteOpener(std::sync::Arc::new(
                    move |path: &str, cancel: Option<plumb_core::CancelToken>| {
                        if !plumb_remote::is_remote(path) {
                            return None;
                        }
                        Some(
                            list.judge(path)
                                .and_then(|url| {
                                    plumb_remote::RemoteSource::open(url.as_str(), &config)
                                })
                                .map(|s| Box::new(s.with_cancel(cancel)) as Box<dyn plumb::Source>),
                        )
                    },
                )),
                &self.allow_remote,
            );
        }
        #[cfg(not(feature = "remote"))]
        if !self.allow_remote.is_empty() {
            return Err(Refusal::invalid_argument(
                "--allow-remote needs a build with the remote feature",
            ));
        }
        Ok(toolbox)
    }
}

pub(crate) fn tool_cmd(agent: &Agent) -> ExitCode {
    let toolbox = match agent.toolbox() {
        Ok(t) => t,
        Err(r) => return refuse(&r, true),
    };
    let answer = toolbox.call_reader(std::io::stdin().lock(), None);
    let ok = answer["ok"] == Value::Bool(true);
    if let Err(code) = emit(&(answer.to_string() + "\n")) {
        return code;
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}

pub(crate) fn mcp_cmd(agent: &Agent) -> ExitCode {
    let toolbox = match agent.toolbox() {
        Ok(t) => t,
        Err(r) => {
            eprintln!("plumb: refused ({}): {}", r.reason(), r.message());
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("plumb: the async runtime did not start: {e}");
            return ExitCode::from(2);
        }
    };
    let served = runtime.block_on(plumb_tool::McpServer::new(toolbox).serve_stdio());
    // A scan still running on the blocking pool (or the blocking read of
    // stdin) must not hold the exit: the client is gone.
    runtime.shutdown_background();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("plumb: the MCP server stopped: {e}");
            ExitCode::from(2)
        }
    }
}
