//! Reading a ZIP archive held in memory (Inspect's `.eval` logs), without IO.
//!
//! ```text
//! end of central directory   the last record PK\5\6 (ZIP64: its locator PK\6\7 → PK\6\6)
//! central directory          PK\1\2 entries: name, method, sizes, local header offset
//!                            (ZIP64 extra field 0x0001 when a size or offset is 0xFFFFFFFF)
//! local header               PK\3\4, then the entry's data
//! methods                    0 stored, 8 deflate (miniz_oxide), 93 Zstandard (ruzstd, every
//!                            frame: Inspect writes zstd since 0.3.1xx, deflate before)
//! ```
//! Why not the `zip` crate: its Zstandard support binds the C library, which does not build for
//! `wasm32-unknown-unknown`; both decoders used here are pure Rust. Encrypted entries are refused;
//! CRC-32 is not checked (the JSON inside is parsed, which catches a damaged entry).
//!
//! Limits (a zip bomb — a small archive that inflates to gigabytes — is refused before anything
//! is inflated, with a message naming the entry): an entry inflates to at most
//! [`crate::MAX_FILE_BYTES`], and to at most [`MAX_RATIO`] times its compressed size (entries up to
//! [`RATIO_FREE_BYTES`] are exempt); all reads of one archive together inflate to at most
//! [`MAX_RATIO`] times the archive's size (at least [`RATIO_FREE_BYTES`]). The size the directory
//! gives is the decoders' output limit, so an entry cannot inflate beyond what was checked.
//! Real Inspect logs inflate 4–10×.
//!
//! Read in part: a big archive need not be held whole. [`directory_at`] finds the central
//! directory in the archive's last [`TAIL_BYTES`], [`directory`] reads its entries,
//! [`record_range`] says where an entry's local record lies, and [`compact`] makes a new
//! archive of the records read (the browser reads an Inspect log's summaries, not its samples).

/// The most an entry (and an archive as a whole) may inflate, as a multiple of its size.
pub const MAX_RATIO: u64 = 50;
/// Inflated sizes up to this are allowed whatever the ratio.
pub const RATIO_FREE_BYTES: u64 = 4 << 20;

/// One file in the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    method: u16,
    flags: u16,
    crc32: u32,
    compressed_size: u64,
    size: u64,
    header_offset: u64,
}

/// Bytes at the end of an archive that hold its end records: the end-of-central-directory
/// record with the longest comment, the ZIP64 locator and the ZIP64 end record before it.
pub const TAIL_BYTES: u64 = 22 + 65_535 + 20 + 56;

/// Where an archive's central directory is: its offset, length in bytes and entry count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectoryAt {
    pub offset: u64,
    pub len: u64,
    pub count: u64,
}

fn not_readable(what: &str) -> String {
    format!("not a readable ZIP archive: {what}")
}

/// The central directory's place, from the archive's last bytes `tail` (at least its last
/// [`TAIL_BYTES`], or all of it), which start at offset `tail_at` of the archive.
pub fn directory_at(tail: &[u8], tail_at: u64) -> Result<DirectoryAt, String> {
    let bad = not_readable;
    // The EOCD record is 22 bytes plus a comment of at most 65,535 bytes.
    let lowest = tail.len().saturating_sub(22 + 65_535);
    let eocd = (lowest..=tail.len().saturating_sub(22))
        .rev()
        .find(|&at| u32_at(tail, at) == Some(EOCD))
        .ok_or_else(|| bad("no end-of-central-directory record"))?;
    let mut count = u64::from(u16_at(tail, eocd + 10).unwrap_or(0));
    let mut len = u64::from(u32_at(tail, eocd + 12).unwrap_or(0));
    let mut offset = u64::from(u32_at(tail, eocd + 16).unwrap_or(0));
    if count == 0xFFFF || len == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
        let locator = eocd
            .checked_sub(20)
            .filter(|&at| u32_at(tail, at) == Some(ZIP64_LOCATOR))
            .ok_or_else(|| bad("ZIP64 locator missing"))?;
        let z64 = u64_at(tail, locator + 8)
            .and_then(|o| o.checked_sub(tail_at))
            .and_then(|o| usize::try_from(o).ok())
            .filter(|&at| u32_at(tail, at) == Some(ZIP64_EOCD))
            .ok_or_else(|| bad("ZIP64 end record missing"))?;
        let field =
            |off: usize| u64_at(tail, z64 + off).ok_or_else(|| bad("ZIP64 end record cut off"));
        count = field(32)?;
        len = field(40)?;
        offset = field(48)?;
    }
    Ok(DirectoryAt { offset, len, count })
}

/// The `count` entries of a central directory whose bytes start at `bytes` (more may follow).
pub fn directory(bytes: &[u8], count: u64) -> Result<Vec<Entry>, String> {
    let bad = not_readable;
    let mut at = 0usize;
    let mut entries = Vec::new();
    for _ in 0..count {
        if u32_at(bytes, at) != Some(CENTRAL) {
            return Err(bad("central directory entry missing"));
        }
        let field = |off: usize| u16_at(bytes, at + off).ok_or_else(|| bad("directory cut off"));
        let flags = field(8)?;
        let method = field(10)?;
        let crc32 = u32_at(bytes, at + 16).unwrap_or(0);
        let mut compressed_size = u64::from(u32_at(bytes, at + 20).unwrap_or(0));
        let mut size = u64::from(u32_at(bytes, at + 24).unwrap_or(0));
        let name_len = usize::from(field(28)?);
        let extra_len = usize::from(field(30)?);
        let comment_len = usize::from(field(32)?);
        let mut header_offset = u64::from(u32_at(bytes, at + 42).unwrap_or(0));
        let name_bytes = bytes
            .get(at + 46..at + 46 + name_len)
            .ok_or_else(|| bad("entry name cut off"))?;
        let name = String::from_utf8_lossy(name_bytes).into_owned();
        let extra = bytes
            .get(at + 46 + name_len..at + 46 + name_len + extra_len)
            .ok_or_else(|| bad("extra field cut off"))?;
        // ZIP64 extended information: the 0xFFFFFFFF fields, in this order.
        let mut e = 0;
        while e + 4 <= extra.len() {
            let id = u16_at(extra, e).unwrap_or(0);
            let len = usize::from(u16_at(extra, e + 2).unwrap_or(0));
            if id == 0x0001 {
                let mut p = e + 4;
                for value in [&mut size, &mut compressed_size, &mut header_offset] {
                    if *value == 0xFFFF_FFFF {
                        *value = u64_at(extra, p).ok_or_else(|| bad("ZIP64 field cut off"))?;
                        p += 8;
                    }
                }
            }
            e += 4 + len;
        }
        entries.push(Entry {
            name,
            method,
            flags,
            crc32,
            compressed_size,
            size,
            header_offset,
        });
        at += 46 + name_len + extra_len + comment_len;
    }
    Ok(entries)
}

/// The bytes `[start, end)` of the archive that hold `entry`'s local record (its local header,
/// name, extra field and data): from its header to the next entry's header or the directory,
/// and no longer than a header with the longest name and extra field and the data.
pub fn record_range(entries: &[Entry], entry: &Entry, directory_offset: u64) -> (u64, u64) {
    let start = entry.header_offset;
    let next = entries
        .iter()
        .map(|e| e.header_offset)
        .chain([directory_offset])
        .filter(|&o| o > start)
        .min();
    let longest = start
        .saturating_add(30 + 2 * 65_535)
        .saturating_add(entry.compressed_size);
    (start, next.map_or(longest, |n| n.min(longest)))
}

/// Where `entry`'s data lies in `bytes`, its local record starting at `at`: `[start, end)`
/// after the local header, name and extra field; an error names the entry.
fn data_range(bytes: &[u8], at: usize, entry: &Entry) -> Result<(usize, usize), String> {
    let bad = |what: &str| format!("ZIP entry {}: {what}", entry.name);
    if u32_at(bytes, at) != Some(LOCAL) {
        return Err(bad("local header missing"));
    }
    let name_len = usize::from(u16_at(bytes, at + 26).ok_or_else(|| bad("cut off"))?);
    let extra_len = usize::from(u16_at(bytes, at + 28).ok_or_else(|| bad("cut off"))?);
    let start = at + 30 + name_len + extra_len;
    let len = usize::try_from(entry.compressed_size).map_err(|_| bad("too large"))?;
    let end = start.saturating_add(len);
    match end <= bytes.len() {
        true => Ok((start, end)),
        false => Err(bad("data cut off")),
    }
}

/// A new archive of `records`: each entry of the original with its local record as read from
/// it (from its local header; bytes after the record are left out), at its new place.
pub fn compact(records: &[(&Entry, &[u8])]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    if records.len() >= 0xFFFF {
        return Err(not_readable("too many entries to compact"));
    }
    for (entry, record) in records {
        let bad = |what: &str| format!("ZIP entry {}: {what}", entry.name);
        let (_, end) = data_range(record, 0, entry)?;
        let record = &record[..end];
        let small = |n: u64| u32::try_from(n).ok().filter(|&n| n != u32::MAX);
        let (Some(offset), Some(compressed), Some(size)) = (
            small(out.len() as u64),
            small(entry.compressed_size),
            small(entry.size),
        ) else {
            return Err(bad("too large to compact"));
        };
        out.extend_from_slice(record);
        let name = entry.name.as_bytes();
        let name_len = u16::try_from(name.len()).map_err(|_| bad("name too long"))?;
        central.extend(CENTRAL.to_le_bytes());
        central.extend(45u16.to_le_bytes()); // version made by
        central.extend(45u16.to_le_bytes()); // version needed
        central.extend(entry.flags.to_le_bytes());
        central.extend(entry.method.to_le_bytes());
        central.extend([0u8; 4]); // time, date
        central.extend(entry.crc32.to_le_bytes());
        central.extend(compressed.to_le_bytes());
        central.extend(size.to_le_bytes());
        central.extend(name_len.to_le_bytes());
        central.extend([0u8; 12]); // extra, comment, disk, internal and external attributes
        central.extend(offset.to_le_bytes());
        central.extend(name);
    }
    let (Some(cd_offset), Some(cd_len)) = (
        u32::try_from(out.len()).ok().filter(|&n| n != u32::MAX),
        u32::try_from(central.len()).ok().filter(|&n| n != u32::MAX),
    ) else {
        return Err(not_readable("too large to compact"));
    };
    let count = records.len() as u16;
    out.extend(central);
    out.extend(EOCD.to_le_bytes());
    out.extend([0u8; 4]); // disk numbers
    out.extend(count.to_le_bytes());
    out.extend(count.to_le_bytes());
    out.extend(cd_len.to_le_bytes());
    out.extend(cd_offset.to_le_bytes());
    out.extend(0u16.to_le_bytes()); // comment
    Ok(out)
}

/// An archive's directory over its bytes.
#[derive(Debug)]
pub struct Archive<'a> {
    bytes: &'a [u8],
    pub entries: Vec<Entry>,
    /// Bytes inflated by the reads so far (against the archive's total limit).
    inflated: std::cell::Cell<u64>,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

const EOCD: u32 = 0x0605_4b50;
const ZIP64_LOCATOR: u32 = 0x0706_4b50;
const ZIP64_EOCD: u32 = 0x0606_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const LOCAL: u32 = 0x0403_4b50;

/// Whether `bytes` start like a ZIP archive (a local header or an empty archive).
pub fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")
}

impl<'a> Archive<'a> {
    /// Read the central directory; an error says what is wrong with the archive.
    pub fn new(bytes: &'a [u8]) -> Result<Self, String> {
        let at = directory_at(bytes, 0)?;
        let start = usize::try_from(at.offset)
            .ok()
            .filter(|&o| o <= bytes.len())
            .ok_or_else(|| not_readable("directory offset too large"))?;
        let entries = directory(&bytes[start..], at.count)?;
        Ok(Self {
            bytes,
            entries,
            inflated: std::cell::Cell::new(0),
        })
    }

    /// The entry called `name`.
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The uncompressed bytes of `entry`.
    pub fn read(&self, entry: &Entry) -> Result<Vec<u8>, String> {
        let bad = |what: &str| format!("ZIP entry {}: {what}", entry.name);
        if entry.flags & 1 != 0 {
            return Err(bad("encrypted entries are not supported"));
        }
        if entry.size > crate::MAX_FILE_BYTES {
            return Err(bad("larger than the file size limit"));
        }
        let bomb = |limit: u64, what: &str| {
            bad(&format!(
                "inflates to {} bytes, more than {limit} ({what}): refused as a possible zip bomb",
                entry.size
            ))
        };
        let entry_limit = entry
            .compressed_size
            .saturating_mul(MAX_RATIO)
            .max(RATIO_FREE_BYTES);
        if entry.size > entry_limit {
            return Err(bomb(
                entry_limit,
                &format!(
                    "{MAX_RATIO} times its {} compressed bytes",
                    entry.compressed_size
                ),
            ));
        }
        let total_limit = (self.bytes.len() as u64)
            .saturating_mul(MAX_RATIO)
            .max(RATIO_FREE_BYTES);
        let total = self.inflated.get().saturating_add(entry.size);
        if total > total_limit {
            return Err(bomb(
                total_limit,
                &format!(
                    "with the entries read before it, {MAX_RATIO} times the archive's {} bytes",
                    self.bytes.len()
                ),
            ));
        }
        self.inflated.set(total);
        let at = usize::try_from(entry.header_offset).map_err(|_| bad("offset too large"))?;
        let (start, end) = data_range(self.bytes, at, entry)?;
        let data = &self.bytes[start..end];
        let size = usize::try_from(entry.size).map_err(|_| bad("too large"))?;
        let out = match entry.method {
            0 => data.to_vec(),
            8 => miniz_oxide::inflate::decompress_to_vec_with_limit(data, size)
                .map_err(|e| bad(&format!("deflate: {e}")))?,
            93 => zstd(data, size).map_err(|e| bad(&format!("zstd: {e}")))?,
            m => return Err(bad(&format!("compression method {m} is not supported"))),
        };
        if out.len() != size {
            return Err(bad("uncompressed size differs from the directory's"));
        }
        Ok(out)
    }

    /// The bytes of the entry called `name`, `None` when there is no such entry.
    pub fn read_name(&self, name: &str) -> Result<Option<Vec<u8>>, String> {
        self.entry(name).map(|e| self.read(e)).transpose()
    }
}

/// Every Zstandard frame of `data`, decoded (at most `size` bytes). The output buffer starts
/// near the usual JSON ratio and grows fourfold while too small, so a directory that claims a
/// huge size cannot make the reader allocate it up front.
fn zstd(data: &[u8], size: usize) -> Result<Vec<u8>, String> {
    use ruzstd::decoding::{FrameDecoder, errors::FrameDecoderError};
    let mut capacity = size.min(data.len().saturating_mul(16).max(1 << 20));
    loop {
        let mut out = Vec::with_capacity(capacity);
        match FrameDecoder::new().decode_all_to_vec(data, &mut out) {
            Ok(()) => return Ok(out),
            Err(FrameDecoderError::TargetTooSmall) if capacity < size => {
                capacity = size.min(capacity.saturating_mul(4));
            }
            Err(FrameDecoderError::TargetTooSmall) => {
                return Err("larger than the size in the directory".into());
            }
            Err(e) => return Err(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ZIP archive of `(name, method, data as stored)` entries (sizes from `plain`).
    fn archive(entries: &[(&str, u16, Vec<u8>, usize)]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (name, method, data, plain) in entries {
            let offset = out.len() as u32;
            let header = |sig: u32, out: &mut Vec<u8>| {
                out.extend(sig.to_le_bytes());
                if sig == CENTRAL {
                    out.extend(20u16.to_le_bytes()); // version made by
                }
                out.extend(20u16.to_le_bytes()); // version needed
                out.extend(0u16.to_le_bytes()); // flags
                out.extend(method.to_le_bytes());
                out.extend([0u8; 8]); // time, date, crc
                out.extend((data.len() as u32).to_le_bytes());
                out.extend((*plain as u32).to_le_bytes());
                out.extend((name.len() as u16).to_le_bytes());
                out.extend(0u16.to_le_bytes()); // extra
            };
            header(LOCAL, &mut out);
            out.extend(name.as_bytes());
            out.extend(data);
            header(CENTRAL, &mut central);
            central.extend([0u8; 8]); // comment len, disk, internal attrs, (2 of) external
            central.extend([0u8; 2]);
            central.extend(offset.to_le_bytes());
            central.extend(name.as_bytes());
        }
        let cd_offset = out.len() as u32;
        out.extend(&central);
        out.extend(EOCD.to_le_bytes());
        out.extend([0u8; 4]);
        out.extend((entries.len() as u16).to_le_bytes());
        out.extend((entries.len() as u16).to_le_bytes());
        out.extend((central.len() as u32).to_le_bytes());
        out.extend(cd_offset.to_le_bytes());
        out.extend(0u16.to_le_bytes());
        out
    }

    #[test]
    fn stored_and_deflated_entries_read_back() {
        let text = br#"{"eval": {"task": "t", "model": "m"}}"#.repeat(20);
        let deflated = miniz_oxide::deflate::compress_to_vec(&text, 6);
        let bytes = archive(&[
            ("a.json", 0, text.clone(), text.len()),
            ("header.json", 8, deflated, text.len()),
        ]);
        assert!(is_zip(&bytes));
        let zip = Archive::new(&bytes).unwrap();
        assert_eq!(zip.entries.len(), 2);
        assert_eq!(zip.read_name("a.json").unwrap().unwrap(), text);
        assert_eq!(zip.read_name("header.json").unwrap().unwrap(), text);
        assert_eq!(zip.read_name("missing.json").unwrap(), None);
    }

    #[test]
    fn zip_bombs_are_refused_before_inflating_naming_the_entry() {
        // 64 MiB of one byte deflates to ~64 KB (ratio ~1000:1): refused, as its directory says.
        let plain = vec![b'a'; 64 << 20];
        let bomb = miniz_oxide::deflate::compress_to_vec(&plain, 6);
        assert!(bomb.len() < (64 << 20) / 500, "{}", bomb.len());
        let bytes = archive(&[("header.json", 8, bomb.clone(), plain.len())]);
        let err = Archive::new(&bytes)
            .unwrap()
            .read_name("header.json")
            .unwrap_err();
        assert!(
            err.starts_with("ZIP entry header.json: inflates to 67108864 bytes")
                && err.contains("zip bomb"),
            "{err}"
        );
        // A directory that understates the size cannot make it inflate more: the decoder stops.
        let understated = archive(&[("header.json", 8, bomb, 1 << 20)]);
        let err = Archive::new(&understated)
            .unwrap()
            .read_name("header.json")
            .unwrap_err();
        assert!(err.contains("deflate"), "{err}");

        // Small entries may compress well; many of them still meet the archive's total limit.
        let small = vec![b'{'; 3 << 20];
        let packed = miniz_oxide::deflate::compress_to_vec(&small, 6);
        let many: Vec<(String, u16, Vec<u8>, usize)> = (0..40)
            .map(|i| (format!("samples/{i}.json"), 8, packed.clone(), small.len()))
            .collect();
        let many: Vec<(&str, u16, Vec<u8>, usize)> = many
            .iter()
            .map(|(n, m, d, p)| (n.as_str(), *m, d.clone(), *p))
            .collect();
        let bytes = archive(&many);
        let zip = Archive::new(&bytes).unwrap();
        assert_eq!(zip.read_name("samples/0.json").unwrap().unwrap(), small);
        let failed = (1..40)
            .map(|i| zip.read_name(&format!("samples/{i}.json")))
            .position(|r| r.is_err())
            .expect("the total limit is met");
        let err = zip.read_name("samples/39.json").unwrap_err();
        assert!(
            err.contains("entries read before it") && err.contains("zip bomb"),
            "{err}"
        );
        // What was read before the limit: at most 4 MiB or 50 times the archive.
        let limit = (bytes.len() as u64 * MAX_RATIO).max(RATIO_FREE_BYTES);
        assert!((failed as u64 + 1) * small.len() as u64 <= limit);
    }

    /// `bytes` (an archive from [`archive`]) with ZIP64 end records: the EOCD's count and
    /// offset say 0xFFFF / 0xFFFFFFFF and the ZIP64 end record before it has the real ones.
    fn with_zip64_end(bytes: &[u8]) -> Vec<u8> {
        let eocd = bytes.len() - 22;
        let count = u64::from(u16_at(bytes, eocd + 10).unwrap());
        let len = u64::from(u32_at(bytes, eocd + 12).unwrap());
        let offset = u64::from(u32_at(bytes, eocd + 16).unwrap());
        let mut out = bytes[..eocd].to_vec();
        let z64 = out.len() as u64;
        out.extend(ZIP64_EOCD.to_le_bytes());
        out.extend(44u64.to_le_bytes());
        out.extend([45, 0, 45, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        for v in [count, count, len, offset] {
            out.extend(v.to_le_bytes());
        }
        out.extend(ZIP64_LOCATOR.to_le_bytes());
        out.extend(0u32.to_le_bytes());
        out.extend(z64.to_le_bytes());
        out.extend(1u32.to_le_bytes());
        out.extend(EOCD.to_le_bytes());
        out.extend([0u8; 4]);
        out.extend(0xFFFFu16.to_le_bytes());
        out.extend(0xFFFFu16.to_le_bytes());
        out.extend((len as u32).to_le_bytes());
        out.extend(0xFFFF_FFFFu32.to_le_bytes());
        out.extend(0u16.to_le_bytes());
        out
    }

    #[test]
    fn an_archive_read_in_part_reads_as_the_whole() {
        let text = |i: usize| {
            format!(r#"{{"entry": {i}, "pad": "{}"}}"#, "x".repeat(300 * i)).into_bytes()
        };
        let plain: Vec<Vec<u8>> = (0..6).map(text).collect();
        let stored: Vec<(String, u16, Vec<u8>, usize)> = plain
            .iter()
            .enumerate()
            .map(|(i, t)| match i % 2 {
                0 => (format!("samples/{i}.json"), 0, t.clone(), t.len()),
                _ => (
                    format!("samples/{i}.json"),
                    8,
                    miniz_oxide::deflate::compress_to_vec(t, 6),
                    t.len(),
                ),
            })
            .collect();
        let stored: Vec<(&str, u16, Vec<u8>, usize)> = stored
            .iter()
            .map(|(n, m, d, p)| (n.as_str(), *m, d.clone(), *p))
            .collect();
        for whole in [archive(&stored), with_zip64_end(&archive(&stored))] {
            // Only the last bytes: the directory's place, then the directory itself.
            let tail_at = whole.len() - 200;
            let at = directory_at(&whole[tail_at..], tail_at as u64).unwrap();
            assert_eq!(at.count, 6);
            let cd = &whole[at.offset as usize..(at.offset + at.len) as usize];
            let entries = directory(cd, at.count).unwrap();
            let listed: Vec<(&str, u64, u64)> = entries
                .iter()
                .map(|e| (e.name.as_str(), e.size, e.compressed_size))
                .collect();
            let expected: Vec<(&str, u64, u64)> = stored
                .iter()
                .map(|(n, _, d, p)| (*n, *p as u64, d.len() as u64))
                .collect();
            assert_eq!(listed, expected);
            // Entries 1, 4 and 5 (the last before the directory), from their ranges alone.
            let wanted = [&entries[4], &entries[1], &entries[5]];
            let records: Vec<(&Entry, &[u8])> = wanted
                .iter()
                .map(|e| {
                    let (start, end) = record_range(&entries, e, at.offset);
                    (*e, &whole[start as usize..(end as usize).min(whole.len())])
                })
                .collect();
            let small = compact(&records).unwrap();
            let zip = Archive::new(&small).unwrap();
            assert_eq!(zip.entries.len(), 3);
            for i in [1, 4, 5] {
                let name = format!("samples/{i}.json");
                assert_eq!(zip.read_name(&name).unwrap().unwrap(), plain[i], "{name}");
            }
            assert_eq!(zip.read_name("samples/0.json").unwrap(), None);
            // A record cut short is an error naming the entry.
            let cut = [(wanted[0], &records[0].1[..40])];
            assert!(
                compact(&cut)
                    .unwrap_err()
                    .starts_with("ZIP entry samples/4.json")
            );
        }
    }

    #[test]
    fn a_tail_without_the_end_records_is_an_error() {
        let bytes = archive(&[("a", 0, b"abc".to_vec(), 3)]);
        assert!(directory_at(&bytes[..bytes.len() - 5], 0).is_err());
        let z64 = with_zip64_end(&bytes);
        // The ZIP64 end record lies before the bytes given.
        let tail_at = z64.len() - 30;
        assert!(
            directory_at(&z64[tail_at..], tail_at as u64)
                .unwrap_err()
                .contains("ZIP64")
        );
    }

    #[test]
    fn damaged_archives_are_errors_not_panics() {
        let text = b"hello".to_vec();
        let bytes = archive(&[("x", 8, vec![1, 2, 3], 5), ("y", 0, text, 5)]);
        let zip = Archive::new(&bytes).unwrap();
        assert!(zip.read_name("x").unwrap_err().contains("deflate"));
        for cut in [0, 10, bytes.len() / 2, bytes.len() - 1] {
            let _ = Archive::new(&bytes[..cut]).map(|z| {
                for e in &z.entries {
                    let _ = z.read(e);
                }
            });
        }
        let wrong_size = archive(&[("z", 0, b"abc".to_vec(), 4)]);
        let zip = Archive::new(&wrong_size).unwrap();
        assert!(zip.read_name("z").is_err());
    }
}
