//! Archives read in part, in the worker (issue 29): of a dropped Inspect `.eval` only the
//! entries its scoring reads are read — the directory from the file's end, then header,
//! reductions and summaries: an eighth of a 1 GB log whose sample entries hold the transcripts —
//! into a small archive of their own ([`zip::compact`]), which is what the workspace holds and
//! scores. The `File` stays here for what needs more of it: a sample's own entry for its detail
//! ([`entries`]), the whole file for its hash ([`sha256`], streamed through SHA-256) and for a
//! share (the worker posts the `File` itself: [`blob_of`]).
//!
//! Which files and entries is the workbench's rule ([`workbench::prepare::may_read_in_part`],
//! [`workbench::prepare::archive_entries`], [`workbench::samples::detail_entries`]); here only
//! the reading.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::Arc;

use js_sys::Uint8Array;
use metrics_core::imports::zip::{self, Entry};
use wasm_bindgen_futures::JsFuture;
use web_sys::Blob;
use workbench::detect::DETECT_HEAD_BYTES;

/// Largest central directory read (an archive of 200,000 entries has ~15 MB).
const MAX_DIRECTORY_BYTES: u64 = 256 << 20;

/// Smallest central directory entry: an entry count above `len / 46` is not a directory.
const CENTRAL_ENTRY_BYTES: u64 = 46;

/// Bytes per slice when a file is read through (its hash).
const SLICE_BYTES: f64 = (4u64 << 20) as f64;

/// Where an archive read in part is: its `File` and directory.
pub struct Directory {
    blob: Blob,
    entries: Vec<Entry>,
    offset: u64,
    /// Reading it through for its hash failed (said once; not tried again).
    unreadable: bool,
}

/// An archive read in part: a small archive of the entries read, and where the rest is.
pub struct Read {
    pub bytes: Vec<u8>,
    pub directory: Directory,
}

thread_local! {
    /// Files read in part, by their bytes as held (the small archive).
    static HELD: RefCell<Vec<(Arc<Vec<u8>>, Directory)>> = const { RefCell::new(Vec::new()) };
}

/// Start reading bytes `[start, end)` of `blob` (the read runs while the caller waits on others).
fn ask(blob: &Blob, start: f64, end: f64) -> Result<JsFuture, String> {
    let slice = blob
        .slice_with_f64_and_f64(start, end)
        .map_err(|e| format!("cannot read the file: {e:?}"))?;
    Ok(slice.array_buffer().into())
}

async fn bytes_of(reading: JsFuture) -> Result<Vec<u8>, String> {
    let buffer = reading
        .await
        .map_err(|e| format!("cannot read the file: {e:?}"))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// `blob` (the file `name`) read in part when it is an archive whose benchmark scores some of
/// its entries only; `None` to read it whole (not an archive, one its benchmark reads whole, or
/// one whose directory or records do not add up: read whole, its scoring says what is wrong).
/// Only a file that cannot be read is an error.
pub async fn read(blob: &Blob, name: &str) -> Result<Option<Read>, String> {
    let named = |e: String| format!("{name}: {e}");
    let size = blob.size();
    let tail_at = (size - zip::TAIL_BYTES as f64).max(0.0);
    let head = ask(blob, 0.0, size.min(DETECT_HEAD_BYTES as f64)).map_err(named)?;
    let tail = ask(blob, tail_at, size).map_err(named)?;
    let (head, tail) = (
        bytes_of(head).await.map_err(named)?,
        bytes_of(tail).await.map_err(named)?,
    );
    if !zip::is_zip(&head) {
        return Ok(None);
    }
    let Ok(at) = zip::directory_at(&tail, tail_at as u64) else {
        return Ok(None);
    };
    let end = at.offset.saturating_add(at.len);
    if at.len > MAX_DIRECTORY_BYTES || end > size as u64 || at.count > at.len / CENTRAL_ENTRY_BYTES
    {
        return Ok(None);
    }
    let directory = ask(blob, at.offset as f64, end as f64).map_err(named)?;
    let Ok(entries) = zip::directory(&bytes_of(directory).await.map_err(named)?, at.count) else {
        return Ok(None);
    };
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    let Some(wanted) = workbench::prepare::archive_entries(name, &head, &names) else {
        return Ok(None);
    };
    let directory = Directory {
        blob: blob.clone(),
        entries,
        offset: at.offset,
        unreadable: false,
    };
    Ok(read_entries(&directory, &wanted)
        .await
        .map_err(named)?
        .map(|bytes| Read { bytes, directory }))
}

/// A small archive of the entries called `wanted` (those the archive has), read one at a time;
/// `None` when their records do not add up (overlapping, more than the file, damaged).
async fn read_entries(directory: &Directory, wanted: &[String]) -> Result<Option<Vec<u8>>, String> {
    let size = directory.blob.size() as u64;
    let mut ranges = Vec::new();
    for name in wanted {
        let Some(entry) = directory.entries.iter().find(|e| &e.name == name) else {
            continue;
        };
        let (start, end) = zip::record_range(&directory.entries, entry, directory.offset);
        ranges.push((entry, start, end.min(size)));
    }
    // A hostile directory could name one range many times over: no more than the file.
    let total = ranges.iter().fold(0u64, |n, (_, start, end)| {
        n.saturating_add(end.saturating_sub(*start))
    });
    if total > size {
        return Ok(None);
    }
    let mut records = Vec::with_capacity(ranges.len());
    for (entry, start, end) in ranges {
        records.push((
            entry,
            bytes_of(ask(&directory.blob, start as f64, end as f64)?).await?,
        ));
    }
    let records: Vec<(&Entry, &[u8])> = records.iter().map(|(e, b)| (*e, b.as_slice())).collect();
    Ok(zip::compact(&records).ok())
}

/// Keep the `File` and directory of a file read in part, held as `bytes`.
pub fn hold(bytes: Arc<Vec<u8>>, directory: Directory) {
    let_go();
    HELD.with_borrow_mut(|held| held.push((bytes, directory)));
}

/// Let go of the files no longer held anywhere (removed, cleared, replaced).
pub fn let_go() {
    HELD.with_borrow_mut(|held| held.retain(|(b, _)| Arc::strong_count(b) > 1));
}

/// `f` of the directory of the file read in part held as `bytes`; `None` when it is not one.
fn with_directory<T>(bytes: &Arc<Vec<u8>>, f: impl FnOnce(&mut Directory) -> T) -> Option<T> {
    HELD.with_borrow_mut(|held| {
        held.iter_mut()
            .find(|(b, _)| Arc::ptr_eq(b, bytes))
            .map(|(_, d)| f(d))
    })
}

/// Whether `bytes` are those of a file read in part.
pub fn holds(bytes: &Arc<Vec<u8>>) -> bool {
    with_directory(bytes, |_| ()).is_some()
}

/// The `File` of the file read in part held as `bytes`.
pub fn blob_of(bytes: &Arc<Vec<u8>>) -> Option<Blob> {
    with_directory(bytes, |d| d.blob.clone())
}

/// A small archive of the entries `wanted` of the file read in part held as `bytes`.
pub async fn entries(bytes: &Arc<Vec<u8>>, wanted: &[String]) -> Result<Vec<u8>, String> {
    // The directory is moved out while its entries are read (no borrow across the wait).
    let taken = HELD.with_borrow_mut(|held| {
        let at = held.iter().position(|(b, _)| Arc::ptr_eq(b, bytes))?;
        Some(held.swap_remove(at))
    });
    let Some((key, directory)) = taken else {
        return Err("the file is no longer held".into());
    };
    let read = read_entries(&directory, wanted).await;
    HELD.with_borrow_mut(|held| held.push((key, directory)));
    read?.ok_or_else(|| "the archive's records do not add up".into())
}

/// Each slice of `blob` in order, [`SLICE_BYTES`] at a time with the next one already asked for.
async fn each_slice(blob: &Blob, mut take: impl FnMut(&Uint8Array)) -> Result<(), String> {
    let size = blob.size();
    let mut asked = 0.0;
    let mut in_flight = VecDeque::new();
    while asked < size && in_flight.len() < 2 {
        let end = (asked + SLICE_BYTES).min(size);
        in_flight.push_back(ask(blob, asked, end)?);
        asked = end;
    }
    while let Some(reading) = in_flight.pop_front() {
        if asked < size {
            let end = (asked + SLICE_BYTES).min(size);
            in_flight.push_back(ask(blob, asked, end)?);
            asked = end;
        }
        let buffer = reading
            .await
            .map_err(|e| format!("cannot read the file: {e:?}"))?;
        take(&Uint8Array::new(&buffer));
    }
    Ok(())
}

/// The SHA-256 (lower-case hex) of the whole file read in part held as `bytes`, its slices
/// hashed as they come (the file is never whole in memory); `None` when it is not one.
/// `Err(Some(why))` the first time the file cannot be read through, `Err(None)` after.
pub async fn sha256(bytes: &Arc<Vec<u8>>) -> Option<Result<String, Option<String>>> {
    use sha2::{Digest, Sha256};
    let (blob, unreadable) = with_directory(bytes, |d| (d.blob.clone(), d.unreadable))?;
    if unreadable {
        return Some(Err(None));
    }
    let mut hasher = Sha256::new();
    let mut buffer = Vec::new();
    let read = each_slice(&blob, |slice| {
        // Reused at one length (a last, shorter slice only shortens it): zeroed once.
        buffer.resize(slice.length() as usize, 0);
        slice.copy_to(&mut buffer);
        hasher.update(&buffer);
    })
    .await;
    Some(match read {
        Ok(()) => Ok(hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()),
        Err(why) => {
            with_directory(bytes, |d| d.unreadable = true);
            Err(Some(why))
        }
    })
}
