// The skeleton path end to end: a JSONL file dropped into the page (through the file input) is
// scored in the browser; QWK equals `scorebench score pairs --json`, the chart renders, a bad
// file shows its file:line message while the good one still scores, and deep links load the app.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { startServer, launchBrowser, scoreJson, tempDir, pageMetrics, artifacts, root } from './support.mjs';

let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  const code = await server?.stop();
  assert.equal(code, 0, 'the server shuts down cleanly on SIGTERM');
});

function pairsFile(dir, name, n) {
  // A deterministic 0..5 score file with some disagreement.
  const lines = [];
  for (let i = 0; i < n; i++) {
    const gold = (i * 7) % 6;
    const pred = Math.max(0, Math.min(5, gold + ((i % 5) - 2) * ((i % 3) === 0 ? 1 : 0)));
    lines.push(JSON.stringify({ id: `r${i}`, gold, pred }));
  }
  const path = join(dir, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

test('a dropped JSONL file shows the CLI\'s QWK and a confusion heat map', async () => {
  const dir = tempDir('pairs');
  // Past the detection head (64 KB): the worker scores it from the records parsed as it was
  // read and takes its bytes in after the numbers.
  const good = pairsFile(dir, 'model_a.jsonl', 5000);
  const expected = scoreJson(['pairs', good]);

  const page = await browser.newPage();
  await page.goto(server.url);
  await page.setInputFiles('input[type=file]', good);
  const card = page.locator('section.card[data-files~="model_a.jsonl"]');
  await card.locator('[data-metric="qwk"][data-subset="overall"]').waitFor();

  const metrics = await pageMetrics(page, 'section.card[data-files~="model_a.jsonl"]');
  assert.equal(await card.locator('tr[data-row="overall"] td.n').innerText(), String(expected.overall.n));
  for (const [key, value] of Object.entries(expected.overall.metrics)) {
    assert.equal(metrics[`overall/${key}`], value, `${key} on the page equals the CLI`);
  }
  assert.equal(typeof metrics['overall/qwk'], 'number');
  // The hash (of the bytes taken in after the numbers) is the file's.
  await page.locator('section.card[data-files~="model_a.jsonl"][data-hashed="true"]').waitFor();
  const exported = JSON.parse(await card.locator('button[data-export="json"]').getAttribute('data-content'));
  assert.equal(exported.inputs[0].sha256, createHash('sha256').update(readFileSync(good)).digest('hex'));

  await page.click('button[data-tab="charts"]');
  const heatmap = page.locator('section.card[data-files~="model_a.jsonl"] figure[data-chart="pairs-confusion"] svg');
  await heatmap.waitFor();
  const rects = await heatmap.locator('rect').count();
  assert.ok(rects >= 36, `the heat map drew its 6×6 cells (${rects} rects)`);
  assert.match(page.url(), /tab=charts/, 'the tab is kept in the URL');
  await page.screenshot({ path: join(artifacts, 'skeleton-pairs.png'), fullPage: true });

  // The samples stay in the worker: it counts them, filters them and sends the rows in view.
  await page.click('button[data-tab="samples"]');
  const count = page.locator('[data-testid="sample-count"]');
  await page.locator('.vrow[data-sample="0"]').waitFor();
  assert.match(await count.innerText(), new RegExp(`^${expected.overall.n} `));
  const records = readFileSync(good, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const apart = records.filter((r) => Math.abs(r.gold - r.pred) >= 2).length;
  assert.ok(apart > 0 && apart < records.length);
  await page.fill('input[aria-label="minimum disagreement"]', '2');
  await page.waitForFunction(([sel, n]) => document.querySelector(sel)?.innerText.startsWith(`${n} `),
    ['[data-testid="sample-count"]', apart]);
  const first = records.findIndex((r) => Math.abs(r.gold - r.pred) >= 2);
  await page.locator(`.vrow[data-sample="${first}"]`).click();
  const detail = page.locator('[data-testid="sample-detail"]');
  await detail.waitFor();
  assert.match(await detail.innerText(), new RegExp(`line ${first + 1}`));
  await page.close();
});

test('a malformed file shows file:line while the other file still scores', async () => {
  const dir = tempDir('bad');
  const good = pairsFile(dir, 'good.jsonl', 50);
  const bad = join(dir, 'bad.jsonl');
  writeFileSync(bad, '{"gold": 1, "pred": 1}\n{"gold": 2, "pred": "two"}\n');

  const page = await browser.newPage();
  await page.goto(server.url);
  await page.setInputFiles('input[type=file]', [bad, good]);
  const error = page.locator('section.card[data-files~="bad.jsonl"] [data-testid="file-error"]');
  await error.waitFor();
  assert.match(await error.innerText(), /^bad\.jsonl:2: `pred` must be a finite number/);
  await page.locator('section.card[data-files~="good.jsonl"] [data-metric="qwk"]').waitFor();
  await page.screenshot({ path: join(artifacts, 'skeleton-bad-file.png'), fullPage: true });
  await page.close();
});

test('deep links load the app; an unknown leaderboard is a 404 page', async () => {
  const page = await browser.newPage();
  const response = await page.goto(new URL('/some/deep/link?tab=charts', server.url).href);
  assert.equal(response.status(), 200);
  await page.locator('input[type=file]').waitFor({ state: 'attached' });
  // /leaderboard/<slug> is rendered by the server: a board that does not exist is not found.
  const missing = await page.goto(new URL('/leaderboard/no-such-board', server.url).href);
  assert.equal(missing.status(), 404);
  await page.close();
});

test('without a working reader worker (its script missing, or silent) the worker reads the file itself', async () => {
  const dir = tempDir('reader');
  const file = pairsFile(dir, 'model_r.jsonl', 5000);
  const expected = scoreJson(['pairs', file]);
  const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
  const readers = [
    ['missing', null],
    // Takes the file and sends nothing: the worker waits 10 s for the first slice.
    ['silent', 'onmessage = () => {};'],
  ];
  for (const [why, script] of readers) {
    // The app as built, with the reader worker's script replaced (or gone).
    const dist = join(tempDir('dist'), 'dist');
    cpSync(join(root, 'dist'), dist, { recursive: true });
    for (const f of ['read-worker.js', 'read-worker.js.gz', 'read-worker.js.br']) rmSync(join(dist, f), { force: true });
    if (script !== null) writeFileSync(join(dist, 'read-worker.js'), script);
    const own = await startServer({ dist });
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(own.url);
    const started = Date.now();
    await page.setInputFiles('input[type=file]', file);
    const card = page.locator('section.card[data-files~="model_r.jsonl"]');
    await card.locator('[data-metric="qwk"][data-subset="overall"]').waitFor({ timeout: 30_000 });
    if (script !== null) assert.ok(Date.now() - started >= 10_000, `${why}: waited for the reader first`);
    const metrics = await pageMetrics(page, 'section.card[data-files~="model_r.jsonl"]');
    assert.equal(metrics['overall/qwk'], expected.overall.metrics.qwk, `${why}: qwk`);
    await page.locator('section.card[data-files~="model_r.jsonl"][data-hashed="true"]').waitFor();
    const exported = JSON.parse(await card.locator('button[data-export="json"]').getAttribute('data-content'));
    assert.equal(exported.inputs[0].sha256, sha256, `${why}: the file's hash`);
    assert.deepEqual(errors, [], `${why}: no page errors`);
    await page.close();
    assert.equal(await own.stop(), 0);
  }
});
