//! What the page holds between messages: the dropped files grouped by model, the variant, and
//! each model's scored jobs — the rules the browser worker follows, here so they are tested
//! natively (the worker only moves bytes and messages).
//!
//! ```text
//! models     a drop that brings predictions (a file whose role is not shared gold data) is a
//!            new model ("model 1", "model 2", …); a drop of gold data alone joins model 1
//! a model's  its own files + every model's shared files (gold, taxonomies), planned and scored
//! jobs       together; a workspace with only shared files scores them as model 1
//! hashes     a file's SHA-256 may come after its numbers (the browser hashes big files later):
//!            filled into every copy of the file and into the reports' inputs that name it
//! ```

use std::sync::Arc;

use crate::bootstrap::Bootstrap;
use crate::class::ClassView;
use crate::detect::Role;
use crate::session::{Outcome, ScoreOptions, Variant, WorkFile};
use crate::table::Table;

/// Most model groups a restored workspace may name (a share comes from someone else).
pub const MAX_MODELS: usize = 4096;

/// A file held by the workspace and the model group it came with.
#[derive(Debug, Clone)]
pub struct Held {
    pub file: WorkFile,
    /// Index into [`Workspace::models`].
    pub model: usize,
}

/// One scored job of one model.
#[derive(Debug, Clone)]
pub struct ScoredJob {
    /// Index into [`Workspace::models`].
    pub model: usize,
    /// The files the model's jobs were planned from (shared files + the model's own).
    pub files: Vec<WorkFile>,
    pub outcome: Outcome,
}

/// What the page shows of one scored job beside its report.
#[derive(Debug, Clone)]
pub struct JobView {
    pub table: Option<Table>,
    /// Cells whose value differs from the official variant's, when another variant is shown.
    pub changed: Vec<(String, String)>,
    /// The teacher's class view, with its file's hash once known.
    pub class: Option<ClassView>,
    /// The variants the job's benchmark offers.
    pub variants: Vec<Variant>,
    /// The names of the job's files.
    pub files: Vec<String>,
}

/// The files, models, variant and scored jobs of one page.
#[derive(Debug, Clone, Default)]
pub struct Workspace {
    pub files: Vec<Held>,
    pub models: Vec<String>,
    pub variant: Variant,
    pub scored: Vec<ScoredJob>,
}

fn model_name(index: usize) -> String {
    format!("model {}", index + 1)
}

impl Workspace {
    /// Add one drop of files: a new model when it brings predictions (or is the first drop),
    /// else the first model's shared data.
    pub fn add(&mut self, files: Vec<WorkFile>) {
        let brings_predictions = files.iter().any(|f| !f.role.is_shared());
        let model = if self.models.is_empty() || brings_predictions {
            self.models.push(model_name(self.models.len()));
            self.models.len() - 1
        } else {
            0
        };
        self.files
            .extend(files.into_iter().map(|file| Held { file, model }));
    }

    /// Recognise again the held files no benchmark recognised (a spec was registered since).
    pub fn detect_unknown(&mut self) {
        for held in &mut self.files {
            held.file.detect_if_unknown();
        }
    }

    /// A workspace as a share or a saved page had it: each file with the role it was given
    /// (`None`: detected again) and its model group, `models` groups (at most [`MAX_MODELS`]).
    pub fn restore(
        files: Vec<(WorkFile, Option<Role>, usize)>,
        models: usize,
        variant: Variant,
    ) -> Workspace {
        let models = models.clamp(1, MAX_MODELS);
        Workspace {
            models: (0..models).map(model_name).collect(),
            variant,
            files: files
                .into_iter()
                .map(|(mut file, role, model)| {
                    if let Some(role) = role {
                        file.role = role;
                    }
                    Held {
                        file,
                        model: model.min(models - 1),
                    }
                })
                .collect(),
            scored: Vec::new(),
        }
    }

    /// The files go; the variant stays (a board's verification clears and re-scores with the
    /// board's variant).
    pub fn clear(&mut self) {
        *self = Workspace {
            variant: self.variant,
            ..Workspace::default()
        };
    }

    /// The model a held file shows under: `shared` for gold data, else its group's name.
    pub fn model_of(&self, held: &Held) -> &str {
        if held.file.role.is_shared() {
            "shared"
        } else {
            self.models.get(held.model).map_or("", String::as_str)
        }
    }

    /// Model `model`'s files: its own and every shared one, in drop order.
    pub fn model_files(&self, model: usize) -> Vec<WorkFile> {
        self.files
            .iter()
            .filter(|h| h.model == model || h.file.role.is_shared())
            .map(|h| h.file.clone())
            .collect()
    }

    /// Score every model's jobs into [`Self::scored`]: each model with files of its own, or
    /// the first model when every file is shared.
    pub fn score(&mut self, samples_later: bool) {
        let mut models: Vec<usize> = (0..self.models.len())
            .filter(|&m| {
                self.files
                    .iter()
                    .any(|h| h.model == m && !h.file.role.is_shared())
            })
            .collect();
        if models.is_empty() && !self.models.is_empty() {
            models.push(0);
        }
        let options = ScoreOptions {
            variant: self.variant,
            samples_later,
        };
        self.scored = models
            .into_iter()
            .flat_map(|model| {
                let files = self.model_files(model);
                crate::scoring::score_files(&files, &options)
                    .into_iter()
                    .map(move |outcome| ScoredJob {
                        model,
                        files: files.clone(),
                        outcome,
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
    }

    /// Every copy of every file: the held ones and the scored jobs' (they share their bytes).
    fn every_file_mut(&mut self) -> impl Iterator<Item = &mut WorkFile> {
        self.files
            .iter_mut()
            .map(|h| &mut h.file)
            .chain(self.scored.iter_mut().flat_map(|s| s.files.iter_mut()))
    }

    /// The size of the held file whose bytes (or head, for a file read later) are `bytes`.
    pub fn size_of(&self, bytes: &Arc<Vec<u8>>) -> Option<usize> {
        self.files
            .iter()
            .find(|h| Arc::ptr_eq(&h.file.bytes, bytes))
            .map(|h| h.file.size)
    }

    /// A file read for later got its bytes: put them in place of its head in every copy.
    pub fn replace_bytes(&mut self, head: &Arc<Vec<u8>>, bytes: Arc<Vec<u8>>) {
        for file in self.every_file_mut() {
            if Arc::ptr_eq(&file.bytes, head) {
                file.bytes = bytes.clone();
            }
        }
    }

    /// The files whose hash is still to come (bytes and name).
    pub fn unhashed(&self) -> Vec<(Arc<Vec<u8>>, String)> {
        self.files
            .iter()
            .filter(|h| h.file.sha256.as_deref() == Some(""))
            .map(|h| (h.file.bytes.clone(), h.file.name.clone()))
            .collect()
    }

    /// The SHA-256 of `bytes` (file `name`) came: fill it into every copy of the file and into
    /// the reports' inputs that name it and have none yet.
    pub fn fill_hash(&mut self, bytes: &Arc<Vec<u8>>, name: &str, sha256: &str) {
        for file in self.every_file_mut() {
            if Arc::ptr_eq(&file.bytes, bytes) && file.sha256.as_deref() == Some("") {
                file.sha256 = Some(sha256.to_string());
            }
        }
        for s in &mut self.scored {
            if let Ok(scored) = &mut s.outcome.result {
                for input in &mut scored.report.inputs {
                    if input.path == name && input.sha256.is_empty() {
                        input.sha256 = sha256.to_string();
                    }
                }
            }
        }
    }

    /// Whether the numbers should wait for the hashes: a class view is keyed by its file's hash
    /// (the teacher's adjustments are stored under it) and some hash is still to come.
    pub fn class_waits_for_hash(&self) -> bool {
        self.files
            .iter()
            .any(|h| h.file.sha256.as_deref() == Some(""))
            && self
                .scored
                .iter()
                .any(|s| match (s.outcome.job.benchmark(), &s.outcome.result) {
                    (Some(b), Ok(scored)) => b.class(scored).is_some(),
                    _ => false,
                })
    }

    /// The class view of scored job `i` (its essays file's hash filled in), for what the page
    /// asks of a class after it was shown (norming).
    pub fn class_view(&self, i: usize) -> Option<crate::class::ClassView> {
        let ScoredJob { files, outcome, .. } = self.scored.get(i)?;
        let scored = outcome.result.as_ref().ok()?;
        let mut class = outcome.job.benchmark()?.class(scored)?;
        // A hash filled in after scoring (`fill_hash`).
        if class.sha256.is_empty()
            && let Some(f) = files.iter().find(|f| f.name == class.file)
        {
            class.sha256 = f.sha256.clone().unwrap_or_default();
        }
        Some(class)
    }

    /// What the page shows of scored job `i` beside its report: its table (with the cells the
    /// variant changed against the official one, whose records are re-scored, not re-parsed),
    /// class view, variants and file names.
    pub fn job_view(&self, i: usize) -> Option<JobView> {
        let ScoredJob { files, outcome, .. } = self.scored.get(i)?;
        let official = (outcome.variant != Variant::Official)
            .then(|| crate::scoring::rescore(files, outcome, Variant::Official))
            .and_then(|o| o.report().cloned());
        let (table, changed) = match outcome.report() {
            Some(report) => (
                Some(crate::registry::table(report)),
                official
                    .as_ref()
                    .map(|o| crate::table::changed_cells(o, report))
                    .unwrap_or_default(),
            ),
            None => (None, Vec::new()),
        };
        let benchmark = outcome.job.benchmark();
        let mut class = self.class_view(i);
        // The benchmark's own numbers the report has (Track 1 against gold levels), for the
        // class view, which does not link the benchmarks.
        if let (Some(c), Some(t), Some(b)) = (class.as_mut(), &table, benchmark) {
            c.scores = b
                .metrics()
                .iter()
                .chain(b.more_metrics())
                .filter_map(|m| t.cell(crate::table::OVERALL, m).cloned())
                .collect();
        }
        Some(JobView {
            table,
            changed,
            class,
            variants: benchmark
                .map(|b| b.available_variants())
                .unwrap_or_default(),
            files: outcome
                .job
                .file_indices()
                .into_iter()
                .filter_map(|i| files.get(i))
                .map(|f| f.name.clone())
                .collect(),
        })
    }

    /// The paired bootstrap of scored jobs `a` and `b` (with `a`'s variant), ready to step.
    pub fn bootstrap(
        &self,
        a: usize,
        b: usize,
        seed: u64,
        resamples: usize,
    ) -> Result<Bootstrap, String> {
        let scored = |i: usize| {
            let s = self
                .scored
                .get(i)
                .ok_or_else(|| format!("no scored job {i}"))?;
            s.outcome
                .result
                .as_ref()
                .map_err(|e| format!("job {i} did not score: {e}"))
        };
        let (sa, sb) = (scored(a)?, scored(b)?);
        Bootstrap::new(sa, sb, self.scored[a].outcome.variant, seed, resamples)
            .map_err(|e| e.to_string())
    }
}
