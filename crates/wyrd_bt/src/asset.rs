//! The tree asset and its loader (`*.bt.ron`, compiled when it loads).

use std::collections::HashMap;
use std::sync::Arc;

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, LoadContext};
use bevy::ecs::prelude::*;
use bevy::log::error;
use bevy::reflect::TypePath;

use crate::compile::{
    BtError, BtProblem, ParsedFile, above_root, compile_all, file_uses, parse_tree_all,
};

/// Where a file the loader reads comes from: the tree asked for (its
/// bytes), or a tree's `Use(file: ..)` (that tree and where it names the
/// file, for an error about the file).
enum Source {
    Asked(Vec<u8>),
    Used {
        by: String,
        line: usize,
        column: usize,
    },
}
use crate::program::Program;
use crate::registry::BtRegistry;

/// A loaded, compiled behavior tree (`*.bt.ron`).
#[derive(Asset, TypePath, Debug, Clone)]
pub struct BtAsset {
    /// The compiled program, shared by every agent that runs it.
    pub program: Arc<Program>,
}

/// Why a tree file did not load: every error found in it (and the files it
/// uses), each with its file:line:column and, for a misspelt key or
/// behavior, the nearest declared one, as the log and `wyrd check` say
/// them. Its text is what a failed load reports (Bevy's load state,
/// `AgentProblem::TreeNotLoaded`), one error per line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{shown}")]
pub struct BtLoadError {
    errors: Vec<BtError>,
    shown: String,
}

impl BtLoadError {
    /// The errors, in the order `wyrd check` prints them (the main file's
    /// first, then by file, line and column).
    pub fn errors(&self) -> &[BtError] {
        &self.errors
    }

    /// Errors with their hints (`; did you mean "hunger"?`), one a line.
    fn new(errors: Vec<BtError>, files: &HashMap<String, ParsedFile>) -> Self {
        let shown = errors
            .iter()
            .map(|e| format!("{e}{}", e.hint(files)))
            .collect::<Vec<_>>()
            .join("\n");
        BtLoadError { errors, shown }
    }
}

impl From<BtError> for BtLoadError {
    fn from(e: BtError) -> Self {
        BtLoadError::new(vec![e], &HashMap::new())
    }
}

/// Loads and compiles `*.bt.ron` files, checking names against the app's
/// [`BtRegistry`]. A bad file is an error (with file:line:column); the
/// previous version of an asset, if any, stays in use.
#[derive(TypePath)]
pub struct BtLoader {
    registry: BtRegistry,
}

impl FromWorld for BtLoader {
    fn from_world(world: &mut World) -> Self {
        BtLoader {
            registry: world.get_resource_or_init::<BtRegistry>().clone(),
        }
    }
}

/// A load error in the log as `wyrd check` shows it, with the source line
/// and a caret, before Bevy's own "Failed to load asset" line.
fn log_with_source(e: &BtError, text: Option<&str>) {
    match text {
        Some(t) => error!("{}", e.with_source(t)),
        None => error!("{e}"),
    }
}

impl AssetLoader for BtLoader {
    type Asset = BtAsset;
    type Settings = ();
    type Error = BtLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        ctx: &mut LoadContext<'_>,
    ) -> Result<BtAsset, BtLoadError> {
        let main = ctx.path().path().to_string_lossy().replace('\\', "/");
        let io = |file: &str, error: String| BtError {
            file: file.to_owned(),
            line: 1,
            column: 1,
            problem: BtProblem::Io {
                file: file.to_owned(),
                error,
            },
        };
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(|e| BtLoadError::from(io(&main, e.to_string())))?;
        let mut files: HashMap<String, ParsedFile> = HashMap::new();
        let mut todo = vec![(main.clone(), Source::Asked(bytes))];
        while let Some((path, source)) = todo.pop() {
            if files.contains_key(&path) {
                continue;
            }
            let bytes = match source {
                Source::Asked(b) => b,
                // Other files become dependencies: editing them reloads
                // this tree too. One that cannot be read is an error of
                // the tree that uses it, where it names it.
                Source::Used { by, line, column } => {
                    match ctx.read_asset_bytes(path.clone()).await {
                        Ok(bytes) => bytes,
                        Err(e) => {
                            let e = BtError {
                                file: by,
                                line,
                                column,
                                problem: BtProblem::Io {
                                    file: path.clone(),
                                    error: e.to_string(),
                                },
                            };
                            // Shown at the `Use`, in the file that has it.
                            log_with_source(&e, files.get(&e.file).map(|f| f.text.as_str()));
                            return Err(e.into());
                        }
                    }
                }
            };
            let (def, text) = parse_tree_all(&path, &bytes).map_err(|errors| {
                let text = String::from_utf8_lossy(&bytes);
                for e in &errors {
                    log_with_source(e, Some(&text));
                }
                BtLoadError::new(errors, &files)
            })?;
            for used in file_uses(&path, &def) {
                let (line, column) = used.position(&text);
                // Bevy reads assets inside the assets folder (and a
                // packaged game has nothing outside it).
                if above_root(&used.path) {
                    let e = BtError {
                        file: path,
                        line,
                        column,
                        problem: BtProblem::Io {
                            file: used.written,
                            error: format!(
                                "it is above the assets folder ({} from it), where Bevy reads: a tree's `Use(file: ..)` must name a file inside it",
                                used.path
                            ),
                        },
                    };
                    log_with_source(&e, Some(&text));
                    return Err(e.into());
                }
                todo.push((
                    used.path,
                    Source::Used {
                        by: path.clone(),
                        line,
                        column,
                    },
                ));
            }
            files.insert(path, ParsedFile { def, text });
        }
        let vocab = self.registry.snapshot();
        // Every faulty node logged (a designer fixes them in one edit),
        // and every one in the load's error (the agents' problem, a test's
        // `wait_loaded`): the first alone hid the rest and the hints.
        let program = compile_all(&main, &files, &vocab).map_err(|errors| {
            for e in &errors {
                error!("{}", e.explain(&files));
            }
            BtLoadError::new(errors, &files)
        })?;
        Ok(BtAsset {
            program: Arc::new(program),
        })
    }

    fn extensions(&self) -> &[&str] {
        &["bt.ron"]
    }
}
