// Reads back the first sheet of an XLSX file (as the teacher view writes it) without any
// spreadsheet library: the zip's central directory, raw-deflate entries (node:zlib), shared
// strings and cells. Returns rows of cell values (strings, or numbers for numeric cells).
import { inflateRawSync } from 'node:zlib';

function unzip(buf) {
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd -= 1;
  if (eocd < 0) throw new Error('not a zip file: no end of central directory');
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const files = {};
  for (let i = 0; i < count; i += 1) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry ${i}`);
    const method = buf.readUInt16LE(at + 10);
    const size = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.toString('utf8', at + 46, at + 46 + nameLen);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(start, start + size);
    files[name] = method === 0 ? data : inflateRawSync(data);
    at += 46 + nameLen + extraLen + commentLen;
  }
  return files;
}

const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"')
  .replace(/&apos;/g, "'").replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n))).replace(/&amp;/g, '&');

function column(ref) {
  let n = 0;
  for (const ch of ref.match(/^[A-Z]+/)[0]) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

export function readXlsx(buf) {
  const files = unzip(buf);
  const strings = [];
  const shared = files['xl/sharedStrings.xml']?.toString('utf8') ?? '';
  for (const si of shared.matchAll(/<si>([\s\S]*?)<\/si>/g)) {
    strings.push([...si[1].matchAll(/<t(?:\s[^>]*)?>([\s\S]*?)<\/t>|<t\/>/g)].map((m) => unescape(m[1] ?? '')).join(''));
  }
  const sheet = files['xl/worksheets/sheet1.xml'].toString('utf8');
  const rows = [];
  for (const row of sheet.matchAll(/<row [^>]*r="(\d+)"[^>]*>([\s\S]*?)<\/row>/g)) {
    const cells = [];
    for (const c of row[2].matchAll(/<c r="([A-Z]+\d+)"([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
      const type = (c[2].match(/t="(\w+)"/) ?? [])[1];
      const v = ((c[3] ?? '').match(/<v>([\s\S]*?)<\/v>/) ?? [])[1];
      const inline = ((c[3] ?? '').match(/<t(?:\s[^>]*)?>([\s\S]*?)<\/t>/) ?? [])[1];
      let value = '';
      if (type === 's') value = strings[Number(v)];
      else if (type === 'inlineStr') value = unescape(inline ?? '');
      else if (type === 'str') value = unescape(v ?? '');
      else if (v !== undefined) value = Number(v);
      cells[column(c[1])] = value;
    }
    rows[Number(row[1]) - 1] = Array.from(cells, (x) => x ?? '');
  }
  return rows;
}
