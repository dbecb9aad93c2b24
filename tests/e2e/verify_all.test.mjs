// "Verify in my browser" on a board of every registered benchmark that takes files, driven by
// `scorebench benchmarks --json`: each benchmark's example files (tests/examples/<key>.json, one
// or more cases of gold + entry files) make a board and an entry through the CLI; the entry page's
// Verify says identical, with every published file's SHA-256 checked (a gold file the entry's job
// does not read is "not used", never ✗), and so does `scorebench leaderboard verify`. Then one
// stored file is altered in the server's database: both verifiers fail, naming that file.
// A new benchmark without an example fails here until tests/examples/<key>.json exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { serverAndBrowser, launchBrowser, tempDir, artifacts, root, scorebench } from './support.mjs';

const tests = join(root, 'tests');
const env = serverAndBrowser();

/** `dir/*suffix` (one star, in the last part) or a plain path, relative to tests/. */
function expand(pattern) {
  const full = join(tests, pattern);
  const name = basename(full);
  if (!name.includes('*')) return [full];
  const [prefix, suffix] = name.split('*');
  const found = readdirSync(dirname(full))
    .filter((f) => f.startsWith(prefix) && f.endsWith(suffix))
    .sort()
    .map((f) => join(dirname(full), f));
  assert.ok(found.length > 0, `${pattern} matches no file`);
  return found;
}

function lb(args, cwd, ok = true) {
  const r = spawnSync(scorebench, ['leaderboard', ...args, '--server', env.base], { cwd, encoding: 'utf8' });
  if (ok) assert.equal(r.status, 0, `leaderboard ${args[0]}: ${r.stderr}`);
  return r;
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const literally = (text) => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

/** Replace a stored file's bytes in the server's file store, the folder beside its SQLite
 * database (what tampering would do). */
function setStoredBytes(sha, bytes) {
  const path = join(env.server.db.replace(/\.sqlite3$/, '.files'), 'sha256', sha.slice(0, 2), sha);
  assert.ok(existsSync(path), `${path} is not stored`);
  writeFileSync(path, bytes);
}

/** The entry page's verdicts after pressing Verify `times` times: [{ ok, rows: [{ file, same,
 * used, text }], text }], one per press (each waits for the verdict of its own run). */
async function verifyInBrowser(slug, entry, shot, { context = env.browser, times = 1 } = {}) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(`${env.base}/leaderboard/${slug}/entry/${entry}?lang=en`);
    const verdicts = [];
    for (let run = 1; run <= times; run++) {
      await page.locator('[data-testid=verify]:not([disabled])').click({ timeout: 30_000 });
      const verdict = page.locator(`[data-testid=verdict][data-run="${run}"]`);
      await verdict.waitFor({ timeout: 120_000 });
      const rows = await page.$$eval('[data-testid=sha-row]', (trs) => trs.map((tr) => ({
        file: tr.dataset.file, same: tr.dataset.same === 'true', used: tr.dataset.used === 'true',
        text: tr.innerText,
      })));
      verdicts.push({ ok: (await verdict.getAttribute('data-ok')) === 'true', rows, text: await verdict.innerText() });
    }
    await page.screenshot({ path: join(artifacts, shot), fullPage: true });
    assert.deepEqual(errors, [], 'no page errors');
    return verdicts;
  } finally {
    await page.close();
  }
}

const listing = JSON.parse(execFileSync(scorebench, ['benchmarks', '--json'], { encoding: 'utf8' }));

test('every registered benchmark has an example for the verify test', () => {
  assert.ok(listing.filter((b) => b.roles.length > 0).length >= 14, `benchmarks listed: ${listing.length}`);
  const missing = listing.filter((b) => b.roles.length > 0 && !existsSync(join(tests, 'examples', `${b.key}.json`)));
  assert.deepEqual(missing.map((b) => b.key), [], 'add tests/examples/<key>.json for each');
});

for (const benchmark of listing.filter((b) => b.roles.length > 0)) {
  const manifest = join(tests, 'examples', `${benchmark.key}.json`);
  if (!existsSync(manifest)) continue;
  for (const [i, c] of JSON.parse(readFileSync(manifest, 'utf8')).cases.entries()) {
    test(`verify in the browser: ${benchmark.key} (${c.name})`, async () => {
      const dir = tempDir(`verify-${benchmark.key}`);
      const copy = (patterns) => patterns.flatMap(expand).map((src) => {
        copyFileSync(src, join(dir, basename(src)));
        return basename(src);
      });
      const gold = copy(c.gold);
      const entryFiles = copy(c.entry);
      const slug = `v-${benchmark.key}-${i}-${Date.now()}`;
      lb(['create', '--slug', slug, '--title', `${benchmark.key} ${c.name}`, '--benchmark', benchmark.key, ...gold], dir);
      const sub = JSON.parse(lb(['submit', '--slug', slug, '--model', 'example', ...entryFiles], dir).stdout);
      const entry = sub.entry;
      assert.ok(entry > 0, `an entry id: ${JSON.stringify(sub)}`);

      // The CLI and the page: identical, every published file listed and checked; the files the
      // entry's job does not read are the manifest's `unused` (none unless it says).
      const unused = [...(c.unused ?? [])].sort();
      const cli = lb(['verify', '--slug', slug], dir, false);
      assert.equal(cli.status, 0, `CLI verify: ${cli.stdout}${cli.stderr}`);
      assert.match(cli.stdout, /identical/);
      const cliUnused = (cli.stdout.split('not used by this entry, same SHA-256: ')[1] ?? '')
        .split('\n')[0].split(', ').filter(Boolean).map((f) => f.split(' ')[0]).sort();
      assert.deepEqual(cliUnused, unused, 'the CLI names the unused files');
      // Pressed twice: the second run's verdict is its own (not the first run's files).
      const runs = await verifyInBrowser(slug, entry, `verify-${benchmark.key}-${i}.png`, { times: 2 });
      for (const [n, good] of runs.entries()) {
        assert.ok(good.ok, `run ${n + 1}: the page says identical: ${good.text}`);
        assert.deepEqual(good.rows.map((r) => r.file).sort(), [...entryFiles, ...gold].sort(), 'every published file has a row');
        for (const r of good.rows) {
          assert.ok(r.same, `${r.file}: its hash is the published one`);
          assert.ok(!r.text.includes('✗') && !r.text.includes('—'), `${r.file}: ${r.text}`);
          assert.equal(/not used by this entry/.test(r.text), !r.used, `${r.file}: "not used" exactly when unused`);
        }
        assert.deepEqual(good.rows.filter((r) => !r.used).map((r) => r.file).sort(), unused, 'the unused files');
      }

      // A stored file altered (by default the first gold file, else the first entry file).
      const target = c.alter ? basename(c.alter) : (gold[0] ?? entryFiles[0]);
      const original = readFileSync(join(dir, target));
      const digest = sha256(original);
      setStoredBytes(digest, Buffer.concat([original, Buffer.from('\n')]));
      // A visitor who never downloaded the file (the first browser keeps it in its HTTP cache).
      const visitor = await launchBrowser();
      try {
        const [bad] = await verifyInBrowser(slug, entry, `verify-${benchmark.key}-${i}-altered.png`, { context: visitor });
        assert.ok(!bad.ok, 'an altered file fails');
        const row = bad.rows.find((r) => r.file === target);
        assert.ok(row && !row.same, `${target} is marked ✗`);
        assert.ok(bad.rows.filter((r) => !r.same).length === 1, 'only that file');
        assert.match(bad.text, /SHA-256 is not the published one:/);
        assert.match(bad.text.split('SHA-256 is not the published one:')[1], literally(target), 'the message names the file');
        const cliBad = lb(['verify', '--slug', slug], dir, false);
        assert.notEqual(cliBad.status, 0, 'the CLI fails too');
        assert.match(cliBad.stdout + cliBad.stderr, literally(`${target}: downloaded SHA-256`));
      } finally {
        await visitor.close();
        setStoredBytes(digest, original);
      }
    });
  }
}
